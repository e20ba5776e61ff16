import { SqliteContext } from './context.ts';
import { getSetting, putSetting, putSettingIfAbsent } from './settings.ts';
import type { SettingStore } from '../setting-store.ts';

/** The issuer's own settings (identity, admin token hash): one row each. (Sqlite: see ../setting-store.ts.) */
export class SqliteSettingStore implements SettingStore {
  constructor(private readonly b: { ctx: SqliteContext }) {}

  getSetting(name: string): Promise<string | null> {
    return getSetting(this.b.ctx, name);
  }

  putSettingIfAbsent(name: string, value: string): Promise<string> {
    return putSettingIfAbsent(this.b.ctx, name, value);
  }

  putSetting(name: string, value: string): Promise<void> {
    return putSetting(this.b.ctx, name, value);
  }
}
