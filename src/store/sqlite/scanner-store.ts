import type {
  ApiKeyRecord,
  EnrollmentTokenListing,
  EnrollmentTokenRecord,
  NewApiKey,
  Page,
  RedeemResult,
  ScannerNamer,
} from '../store.ts';
import { SqliteContext } from './context.ts';
import {
  createEnrollmentToken,
  findApiKey,
  findApiKeyByToken,
  listEnrollmentTokens,
  listApiKeys,
  redeemEnrollmentToken,
  revokeApiKey,
  revokeEnrollmentToken,
  touchApiKey,
  recordClockOffset,
} from './scanners.ts';
import type { ScannerStore } from '../scanner-store.ts';

/** Enrolment tokens and the scanners' API keys. (Sqlite: see ../scanner-store.ts.) */
export class SqliteScannerStore implements ScannerStore {
  constructor(private readonly b: { ctx: SqliteContext }) {}

  createEnrollmentToken(t: EnrollmentTokenRecord): Promise<void> {
    return createEnrollmentToken(this.b.ctx, t);
  }

  listEnrollmentTokens(eid: string): Promise<EnrollmentTokenListing[]> {
    return listEnrollmentTokens(this.b.ctx, eid);
  }

  revokeEnrollmentToken(tokenId: string, at: string): Promise<EnrollmentTokenRecord | null> {
    return revokeEnrollmentToken(this.b.ctx, tokenId, at);
  }

  redeemEnrollmentToken(
    tokenHash: string,
    at: string,
    key: NewApiKey,
    nameScanner?: ScannerNamer,
    onlyEvent?: string,
  ): Promise<RedeemResult> {
    return redeemEnrollmentToken(this.b.ctx, tokenHash, at, key, nameScanner, onlyEvent);
  }

  findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    return findApiKey(this.b.ctx, keyHash);
  }

  touchApiKey(apiKeyId: string, at: string): Promise<void> {
    return touchApiKey(this.b.ctx, apiKeyId, at);
  }

  recordClockOffset(apiKeyId: string, offsetSeconds: number): Promise<void> {
    return recordClockOffset(this.b.ctx, apiKeyId, offsetSeconds);
  }

  revokeApiKey(apiKeyId: string, at: string): Promise<ApiKeyRecord | null> {
    return revokeApiKey(this.b.ctx, apiKeyId, at);
  }

  listApiKeys(eid: string, limit: number, after: string | null): Promise<Page<ApiKeyRecord>> {
    return listApiKeys(this.b.ctx, eid, limit, after);
  }

  findApiKeyByToken(tokenId: string): Promise<ApiKeyRecord | null> {
    return findApiKeyByToken(this.b.ctx, tokenId);
  }
}
