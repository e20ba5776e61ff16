import type {
  ApiKeyRecord,
  EnrollmentTokenListing,
  EnrollmentTokenRecord,
  NewApiKey,
  Page,
  RedeemResult,
  ScannerNamer,
} from '../store.ts';
import { enrolledMessage, scannerRevokedMessage } from '../outbox-data.ts';
import { redemption } from '../redeem.ts';
import { LIST_ENROLLMENT_TOKENS_SQL, page, type Row, SCANNER_NAME_FACTS_SQL, toScannerNameFacts } from '../rows.ts';
import type { SqliteContext } from './context.ts';
import { fanOut } from './outbox.ts';

/** A token or key row: SQLite keeps `allow_search` as 0 or 1. */
function flagged<T extends { allow_search?: boolean } | null>(row: T): T {
  if (row === null) return row;
  return { ...row, allow_search: (row.allow_search as unknown) === 1 || row.allow_search === true };
}

export function createEnrollmentToken(c: SqliteContext, t: EnrollmentTokenRecord): Promise<void> {
  return c.tx(() => {
    c.run(
      `INSERT INTO enrollment_tokens (token_id, token_hash, eid, gate_id, expires_at,
           key_expires_at, created_at, used_at, revoked_at, allow_search)
         VALUES (@token_id, @token_hash, @eid, @gate_id, @expires_at, @key_expires_at,
           @created_at, @used_at, @revoked_at, @allow_search)`,
      { ...t, allow_search: Number(t.allow_search === true) },
    );
  });
}

export async function listEnrollmentTokens(c: SqliteContext, eid: string): Promise<EnrollmentTokenListing[]> {
  return c.all<EnrollmentTokenListing>(LIST_ENROLLMENT_TOKENS_SQL, eid).map(flagged);
}

export function revokeEnrollmentToken(
  c: SqliteContext,
  tokenId: string,
  at: string,
): Promise<EnrollmentTokenRecord | null> {
  return c.tx(() => {
    c.run(
      'UPDATE enrollment_tokens SET revoked_at = ? WHERE token_id = ? AND used_at IS NULL AND revoked_at IS NULL',
      at,
      tokenId,
    );
    return flagged(c.one<EnrollmentTokenRecord>('SELECT * FROM enrollment_tokens WHERE token_id = ?', tokenId));
  });
}

export function redeemEnrollmentToken(
  c: SqliteContext,
  tokenHash: string,
  at: string,
  key: NewApiKey,
  nameScanner?: ScannerNamer,
  onlyEvent?: string,
): Promise<RedeemResult> {
  return c.tx((): RedeemResult => {
    const token = flagged(
      c.one<EnrollmentTokenRecord>('SELECT * FROM enrollment_tokens WHERE token_hash = ?', tokenHash),
    );
    const outcome = redemption(token, at, key, onlyEvent);
    if ('refused' in outcome) return { kind: 'refused', why: outcome.refused };
    if (outcome.record.scanner_name === null && nameScanner) {
      const { eid, gate_id, scanner_id } = outcome.record;
      const facts = c.one<Row>(SCANNER_NAME_FACTS_SQL, eid, gate_id ?? '', scanner_id)!;
      outcome.record.scanner_name = nameScanner(toScannerNameFacts(facts, gate_id));
    }
    c.run('UPDATE enrollment_tokens SET used_at = ? WHERE token_id = ?', at, outcome.token.token_id);
    c.run(
      `INSERT INTO api_keys (api_key_id, key_hash, eid, gate_id, scanner_id, scanner_name,
           scanner_platform, token_id, enrolled_at, expires_at, last_seen_at, revoked_at, allow_search)
         VALUES (@api_key_id, @key_hash, @eid, @gate_id, @scanner_id, @scanner_name,
           @scanner_platform, @token_id, @enrolled_at, @expires_at, @last_seen_at, @revoked_at, @allow_search)`,
      { ...outcome.record, allow_search: Number(outcome.record.allow_search) },
    );
    fanOut(c, enrolledMessage(outcome.record, at));
    return { kind: 'enrolled', key: outcome.record, token: { ...outcome.token, used_at: at } };
  });
}

export async function findApiKey(c: SqliteContext, keyHash: string): Promise<ApiKeyRecord | null> {
  return flagged(c.one<ApiKeyRecord>('SELECT * FROM api_keys WHERE key_hash = ?', keyHash));
}

export function touchApiKey(c: SqliteContext, apiKeyId: string, at: string): Promise<void> {
  return c.tx(() => {
    c.run(
      'UPDATE api_keys SET last_seen_at = ? WHERE api_key_id = ? AND (last_seen_at IS NULL OR last_seen_at < ?)',
      at,
      apiKeyId,
      at,
    );
  });
}

export function recordClockOffset(c: SqliteContext, apiKeyId: string, offsetSeconds: number): Promise<void> {
  return c.tx(() => {
    c.run('UPDATE api_keys SET clock_offset_s = ? WHERE api_key_id = ?', offsetSeconds, apiKeyId);
  });
}

export function revokeApiKey(c: SqliteContext, apiKeyId: string, at: string): Promise<ApiKeyRecord | null> {
  return c.tx(() => {
    const changed = c.run(
      'UPDATE api_keys SET revoked_at = ? WHERE api_key_id = ? AND revoked_at IS NULL',
      at,
      apiKeyId,
    );
    const key = flagged(c.one<ApiKeyRecord>('SELECT * FROM api_keys WHERE api_key_id = ?', apiKeyId));
    if (changed > 0 && key) fanOut(c, scannerRevokedMessage(key, at));
    return key;
  });
}

export async function listApiKeys(
  c: SqliteContext,
  eid: string,
  limit: number,
  after: string | null,
): Promise<Page<ApiKeyRecord>> {
  const rows = c.all<ApiKeyRecord>(
    'SELECT * FROM api_keys WHERE eid = ? AND api_key_id > ? ORDER BY api_key_id LIMIT ?',
    eid,
    after ?? '',
    limit + 1,
  );
  return page(rows.map(flagged), limit, (k) => k.api_key_id);
}

export async function findApiKeyByToken(c: SqliteContext, tokenId: string): Promise<ApiKeyRecord | null> {
  return flagged(c.one<ApiKeyRecord>('SELECT * FROM api_keys WHERE token_id = ?', tokenId));
}
