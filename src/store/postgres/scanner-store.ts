import type {
  ApiKeyRecord,
  EnrollmentTokenListing,
  EnrollmentTokenRecord,
  NewApiKey,
  Page,
  RedeemResult,
  ScannerNamer,
} from '../store.ts';
import type { Tx } from './queries.ts';
import * as scanners from './scanners.ts';
import type pg from 'pg';
import type { ScannerStore } from '../scanner-store.ts';

/** Enrolment tokens and the scanners' API keys. (PostgreSQL: see ../scanner-store.ts.) */
export class PostgresScannerStore implements ScannerStore {
  constructor(private readonly b: { pool: pg.Pool; tx: Tx }) {}

  createEnrollmentToken(t: EnrollmentTokenRecord): Promise<void> {
    return scanners.createEnrollmentToken(this.b.pool, t);
  }

  listEnrollmentTokens(eid: string): Promise<EnrollmentTokenListing[]> {
    return scanners.listEnrollmentTokens(this.b.pool, eid);
  }

  revokeEnrollmentToken(tokenId: string, at: string): Promise<EnrollmentTokenRecord | null> {
    return scanners.revokeEnrollmentToken(this.b.tx, tokenId, at);
  }

  redeemEnrollmentToken(
    tokenHash: string,
    at: string,
    key: NewApiKey,
    nameScanner?: ScannerNamer,
    onlyEvent?: string,
  ): Promise<RedeemResult> {
    return scanners.redeemEnrollmentToken(this.b.tx, tokenHash, at, key, nameScanner, onlyEvent);
  }

  findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    return scanners.findApiKey(this.b.pool, keyHash);
  }

  touchApiKey(apiKeyId: string, at: string): Promise<void> {
    return scanners.touchApiKey(this.b.pool, apiKeyId, at);
  }

  recordClockOffset(apiKeyId: string, offsetSeconds: number): Promise<void> {
    return scanners.recordClockOffset(this.b.pool, apiKeyId, offsetSeconds);
  }

  revokeApiKey(apiKeyId: string, at: string): Promise<ApiKeyRecord | null> {
    return scanners.revokeApiKey(this.b.tx, apiKeyId, at);
  }

  listApiKeys(eid: string, limit: number, after: string | null): Promise<Page<ApiKeyRecord>> {
    return scanners.listApiKeys(this.b.pool, eid, limit, after);
  }

  findApiKeyByToken(tokenId: string): Promise<ApiKeyRecord | null> {
    return scanners.findApiKeyByToken(this.b.pool, tokenId);
  }
}
