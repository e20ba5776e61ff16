/** What reading one configuration variable needs: its raw text, and the error a bad value raises. */

/** A configuration problem, reported at boot with the variable's name. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/** The variable's value without surrounding spaces; null when unset or blank. */
export function text(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

/** A DNS host name (labels of letters, digits and inner hyphens). */
export const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/** A whole number from `min` to `max`, or `fallback` when unset; anything else stops the start naming the setting. */
export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}
