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
  const existing = await store.getSetting(SETTING);
  if (existing !== null) return { hash: existing, generated: null };
  const token = newSecret(ADMIN_TOKEN_PREFIX);
  const hash = hashSecret(token);
  const kept = await store.putSettingIfAbsent(SETTING, hash);
  return { hash: kept, generated: kept === hash ? token : null };
}
