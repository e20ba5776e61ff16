import {
  INSERT_SSO_LOGIN_SQL,
  PURGE_SSO_LOGINS_SQL,
  type SsoLoginRecord,
  type SsoStore,
  TAKE_SSO_LOGIN_SQL,
} from '../sso-store.ts';
import { type Db, numbered, one, type Tx } from './queries.ts';

/** Single sign-on attempts in PostgreSQL: shared by every instance, so a callback may reach another one. */
export function postgresSso(pool: Db, tx: Tx): SsoStore {
  return {
    putLogin: (login) =>
      tx(async (db) => {
        await db.query(numbered(PURGE_SSO_LOGINS_SQL), [login.created_at]);
        const { state_hash, sealed, created_at, expires_at } = login;
        await db.query(numbered(INSERT_SSO_LOGIN_SQL), [state_hash, sealed, created_at, expires_at]);
      }),
    // One statement: the row lock makes a second DELETE of the same row find nothing.
    takeLogin: (stateHash) => one<SsoLoginRecord>(pool, numbered(TAKE_SSO_LOGIN_SQL), [stateHash]),
  };
}
