import type { SqliteContext } from './context.ts';

export async function getSetting(c: SqliteContext, name: string): Promise<string | null> {
  return c.one<{ value: string }>('SELECT value FROM settings WHERE name = ?', name)?.value ?? null;
}

export function putSettingIfAbsent(c: SqliteContext, name: string, value: string): Promise<string> {
  return c.tx(() => {
    c.run('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', name, value);
    return c.one<{ value: string }>('SELECT value FROM settings WHERE name = ?', name)!.value;
  });
}

export function putSetting(c: SqliteContext, name: string, value: string): Promise<void> {
  return c.tx(() => {
    c.run(
      'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = ?',
      name,
      value,
      value,
    );
  });
}

export async function ping(c: SqliteContext): Promise<void> {
  c.one('SELECT 1');
}
