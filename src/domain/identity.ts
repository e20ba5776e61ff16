import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';

const SETTING = 'issuer_base_url';

/**
 * The issuer's identity (`iss`, and the address of its endpoints). Every ticket carries it, so it is
 * fixed at the first start and kept by the store: without BASE_URL, a later start on another PORT
 * keeps it rather than silently invalidating every ticket sold. An explicit BASE_URL that differs
 * becomes the new identity, and the operator is told what that does to the tickets already issued.
 */
export async function resolveIdentity(
  store: Store,
  config: Pick<Config, 'baseUrl' | 'baseUrlExplicit' | 'port'>,
): Promise<{ baseUrl: string; notice: string | null }> {
  const stored = await store.settings.putSettingIfAbsent(SETTING, config.baseUrl);
  if (stored === config.baseUrl) return { baseUrl: stored, notice: null };
  if (!config.baseUrlExplicit) {
    return {
      baseUrl: stored,
      notice:
        `BASE_URL is not set: the issuer keeps the identity ${stored} fixed at its first start ` +
        `(PORT is ${config.port}); set BASE_URL to change it`,
    };
  }
  await store.settings.putSetting(SETTING, config.baseUrl);
  return {
    baseUrl: config.baseUrl,
    notice:
      `BASE_URL changed from ${stored} to ${config.baseUrl}: tickets issued before carry iss ${stored} and ` +
      'now answer invalid_signature when scanned with their token; reissue them, or set BASE_URL back',
  };
}
