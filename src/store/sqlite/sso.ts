import {
  INSERT_SSO_LOGIN_SQL,
  PURGE_SSO_LOGINS_SQL,
  type SsoLoginRecord,
  type SsoStore,
  TAKE_SSO_LOGIN_SQL,
} from '../sso-store.ts';
import type { SqliteContext } from './context.ts';

/** Single sign-on attempts in the SQLite file. */
export function sqliteSso(c: SqliteContext): SsoStore {
  return {
    putLogin: (login) =>
      c.tx(() => {
        c.run(PURGE_SSO_LOGINS_SQL, login.created_at);
        c.run(INSERT_SSO_LOGIN_SQL, login.state_hash, login.sealed, login.created_at, login.expires_at);
      }),
    takeLogin: (stateHash) => c.tx(() => c.one<SsoLoginRecord>(TAKE_SSO_LOGIN_SQL, stateHash)),
  };
}
