import { type Tx } from './queries.ts';
import * as settings from './settings.ts';
import type pg from 'pg';
import type { SettingStore } from '../setting-store.ts';

/** The issuer's own settings (identity, admin token hash): one row each. (PostgreSQL: see ../setting-store.ts.) */
export class PostgresSettingStore implements SettingStore {
  constructor(private readonly b: { pool: pg.Pool; tx: Tx }) {}

  getSetting(name: string): Promise<string | null> {
    return settings.getSetting(this.b.pool, name);
  }

  putSettingIfAbsent(name: string, value: string): Promise<string> {
    return settings.putSettingIfAbsent(this.b.tx, name, value);
  }

  putSetting(name: string, value: string): Promise<void> {
    return settings.putSetting(this.b.pool, name, value);
  }
}
