import { enrolledMessage, scannerRevokedMessage } from '../outbox-data.ts';
import { fanOut } from './outbox.ts';
import { redemption } from '../redeem.ts';
import { LIST_ENROLLMENT_TOKENS_SQL, page, type Row, SCANNER_NAME_FACTS_SQL, toScannerNameFacts } from '../rows.ts';
import type {
  ApiKeyRecord,
  EnrollmentTokenListing,
  EnrollmentTokenRecord,
  NewApiKey,
  Page,
  RedeemResult,
  ScannerNamer,
} from '../store.ts';
import { all, type Db, numbered, one, type Tx } from './queries.ts';

const LIST_ENROLLMENT_TOKENS = numbered(LIST_ENROLLMENT_TOKENS_SQL);
// The parameters' types, which PostgreSQL cannot infer from a bare SELECT list.
const SCANNER_NAME_FACTS = numbered(SCANNER_NAME_FACTS_SQL).replace(
  'SELECT $1 AS eid, $2 AS gate_key, $3 AS scanner_id',
  'SELECT $1::text AS eid, $2::text AS gate_key, $3::text AS scanner_id',
);

/**
 * Advisory lock namespace of scanner naming (the first key; the second is a hash of the eid): two
 * enrolments in one event count the scanners already there one after the other.
 */
const LOCK_SCANNER_NAMES = 0x54490004;

/** Inserts a new enrolment token (its hash only). */
export async function createEnrollmentToken(db: Db, t: EnrollmentTokenRecord): Promise<void> {
  await db.query(
    `INSERT INTO enrollment_tokens (token_id, token_hash, eid, gate_id, expires_at,
         key_expires_at, created_at, used_at, revoked_at, allow_search)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      t.token_id,
      t.token_hash,
      t.eid,
      t.gate_id,
      t.expires_at,
      t.key_expires_at,
      t.created_at,
      t.used_at,
      t.revoked_at,
      t.allow_search === true,
    ],
  );
}

/** The event's enrolment tokens, newest first, each with the scanner that used it (if any). */
export function listEnrollmentTokens(db: Db, eid: string): Promise<EnrollmentTokenListing[]> {
  return all<EnrollmentTokenListing>(db, LIST_ENROLLMENT_TOKENS, [eid]);
}

/** Revokes an unused token (used or revoked ones are left as they are); null if unknown. */
export function revokeEnrollmentToken(tx: Tx, tokenId: string, at: string): Promise<EnrollmentTokenRecord | null> {
  return tx(async (db) => {
    await db.query(
      'UPDATE enrollment_tokens SET revoked_at = $1 WHERE token_id = $2 AND used_at IS NULL AND revoked_at IS NULL',
      [at, tokenId],
    );
    return one<EnrollmentTokenRecord>(db, 'SELECT * FROM enrollment_tokens WHERE token_id = $1', [tokenId]);
  });
}

/**
 * Exchanges a token for an API key, or refuses; concurrent calls with one token see exactly one
 * `enrolled`. A key without a name is named under the event's naming lock (taken after the token's
 * row lock, always in that order).
 */
export function redeemEnrollmentToken(
  tx: Tx,
  tokenHash: string,
  at: string,
  key: NewApiKey,
  nameScanner?: ScannerNamer,
  onlyEvent?: string,
): Promise<RedeemResult> {
  return tx(async (db): Promise<RedeemResult> => {
    // The row lock makes concurrent redeemers queue; each then sees the token as the last one left it.
    const token = await one<EnrollmentTokenRecord>(
      db,
      'SELECT * FROM enrollment_tokens WHERE token_hash = $1 FOR UPDATE',
      [tokenHash],
    );
    const outcome = redemption(token, at, key, onlyEvent);
    if ('refused' in outcome) return { kind: 'refused', why: outcome.refused };
    if (outcome.record.scanner_name === null && nameScanner) {
      const { eid, gate_id, scanner_id } = outcome.record;
      await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_SCANNER_NAMES, eid]);
      const facts = (await one<Row>(db, SCANNER_NAME_FACTS, [eid, gate_id ?? '', scanner_id]))!;
      outcome.record.scanner_name = nameScanner(toScannerNameFacts(facts, gate_id));
    }
    await db.query('UPDATE enrollment_tokens SET used_at = $1 WHERE token_id = $2', [at, outcome.token.token_id]);
    await insertApiKey(db, outcome.record);
    await fanOut(db, enrolledMessage(outcome.record, at));
    return { kind: 'enrolled', key: outcome.record, token: { ...outcome.token, used_at: at } };
  });
}

/** The API key with this hash, whatever its state, or null. */
export function findApiKey(db: Db, keyHash: string): Promise<ApiKeyRecord | null> {
  return one<ApiKeyRecord>(db, 'SELECT * FROM api_keys WHERE key_hash = $1', [keyHash]);
}

/** Records that the key was used at `at` (only moves last_seen_at forward). */
export async function touchApiKey(db: Db, apiKeyId: string, at: string): Promise<void> {
  await db.query(
    'UPDATE api_keys SET last_seen_at = $1 WHERE api_key_id = $2 AND (last_seen_at IS NULL OR last_seen_at < $1)',
    [at, apiKeyId],
  );
}

/** Keeps the scanner's last measured clock offset. */
export async function recordClockOffset(db: Db, apiKeyId: string, offsetSeconds: number): Promise<void> {
  await db.query('UPDATE api_keys SET clock_offset_s = $1 WHERE api_key_id = $2', [offsetSeconds, apiKeyId]);
}

/** Revokes the key once; null if unknown. */
export function revokeApiKey(tx: Tx, apiKeyId: string, at: string): Promise<ApiKeyRecord | null> {
  return tx(async (db) => {
    const changed = await db.query('UPDATE api_keys SET revoked_at = $1 WHERE api_key_id = $2 AND revoked_at IS NULL', [
      at,
      apiKeyId,
    ]);
    const key = await one<ApiKeyRecord>(db, 'SELECT * FROM api_keys WHERE api_key_id = $1', [apiKeyId]);
    if ((changed.rowCount ?? 0) > 0 && key) await fanOut(db, scannerRevokedMessage(key, at));
    return key;
  });
}

/** The event's scanner records in api_key_id order, a page at a time. */
export async function listApiKeys(
  db: Db,
  eid: string,
  limit: number,
  after: string | null,
): Promise<Page<ApiKeyRecord>> {
  const rows = await all<ApiKeyRecord>(
    db,
    'SELECT * FROM api_keys WHERE eid = $1 AND api_key_id > $2 ORDER BY api_key_id LIMIT $3',
    [eid, after ?? '', limit + 1],
  );
  return page(rows, limit, (k) => k.api_key_id);
}

/** The API key an enrolment token was exchanged for, or null. */
export function findApiKeyByToken(db: Db, tokenId: string): Promise<ApiKeyRecord | null> {
  return one<ApiKeyRecord>(db, 'SELECT * FROM api_keys WHERE token_id = $1', [tokenId]);
}

async function insertApiKey(db: Db, k: ApiKeyRecord): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (api_key_id, key_hash, eid, gate_id, scanner_id, scanner_name,
       scanner_platform, token_id, enrolled_at, expires_at, last_seen_at, revoked_at, allow_search)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      k.api_key_id,
      k.key_hash,
      k.eid,
      k.gate_id,
      k.scanner_id,
      k.scanner_name,
      k.scanner_platform,
      k.token_id,
      k.enrolled_at,
      k.expires_at,
      k.last_seen_at,
      k.revoked_at,
      k.allow_search,
    ],
  );
}
