import type { Store } from '../store/store.ts';
import { ADMIN_TOKEN_PREFIX, hashSecret, newSecret } from './ids.ts';

const SETTING = 'admin_token_hash';

/**
 * The hash the admin API checks bearer tokens against. ADMIN_TOKEN, when set, is the token.
 * Otherwise the first start generates one, stores its hash and hands the token back once to print;
 * later starts (and other instances) use the stored hash.
 */
export async function resolveAdminToken(
  store: Store,
  configured: string | null,
): Promise<{ hash: string; generated: string | null }> {
  if (configured !== null) return { hash: hashSecret(configured), generated: null };
  const existing = await store.settings.getSetting(SETTING);
  if (existing !== null) return { hash: existing, generated: null };
  const token = newSecret(ADMIN_TOKEN_PREFIX);
  const hash = hashSecret(token);
  const kept = await store.settings.putSettingIfAbsent(SETTING, hash);
  return { hash: kept, generated: kept === hash ? token : null };
}

/** Replaces the stored admin token with a new one and returns it (to print once). */
export async function resetAdminToken(store: Store): Promise<string> {
  const token = newSecret(ADMIN_TOKEN_PREFIX);
  await store.settings.putSetting(SETTING, hashSecret(token));
  return token;
}

/** How long a running issuer trusts its copy of the stored admin-token hash. */
const REFRESH_MS = 5_000;

/**
 * The admin-token hash a request is checked against: fixed when ADMIN_TOKEN is set, otherwise the
 * stored one, read again at most every 5 seconds so that a reset reaches every running instance.
 */
export function adminTokenHashSource(store: Store, initial: string, configured: boolean): () => Promise<string> {
  if (configured) return async () => initial;
  let current = initial;
  let readAt = Date.now();
  return async () => {
    if (Date.now() - readAt >= REFRESH_MS) {
      readAt = Date.now();
      current = (await store.settings.getSetting(SETTING)) ?? current;
    }
    return current;
  };
}
