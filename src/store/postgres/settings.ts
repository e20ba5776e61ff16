import { type Db, one, type Tx } from './queries.ts';

/** Reads a setting; null when absent. */
export async function getSetting(db: Db, name: string): Promise<string | null> {
  return (await one<{ value: string }>(db, 'SELECT value FROM settings WHERE name = $1', [name]))?.value ?? null;
}

/** Writes a setting only if absent; returns the value that holds afterwards (first writer wins). */
export function putSettingIfAbsent(tx: Tx, name: string, value: string): Promise<string> {
  return tx(async (db) => {
    await db.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, value]);
    // A second statement: its fresh snapshot sees a concurrent winner's committed row.
    return (await one<{ value: string }>(db, 'SELECT value FROM settings WHERE name = $1', [name]))!.value;
  });
}

/** Writes a setting, replacing any value it had. */
export async function putSetting(db: Db, name: string, value: string): Promise<void> {
  await db.query(
    'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value',
    [name, value],
  );
}

/** Answers when a connection can be had and runs a trivial query. */
export async function ping(db: Db): Promise<void> {
  await db.query('SELECT 1');
}
