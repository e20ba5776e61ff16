/** The issuer's own settings (identity, admin token hash): one row each. Every method is one transaction; each says what it guarantees. */
export interface SettingStore {
  /** Reads a setting; null when absent. */
  getSetting(name: string): Promise<string | null>;
  /** Writes a setting only if absent; returns the value that holds afterwards (first writer wins). */
  putSettingIfAbsent(name: string, value: string): Promise<string>;
  /** Writes a setting, replacing any value it had. */
  putSetting(name: string, value: string): Promise<void>;
}
