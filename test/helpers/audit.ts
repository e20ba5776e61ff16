import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import Database from 'better-sqlite3';
import pg, { Client as PgClient } from 'pg';
import type { App } from '../../src/http/context.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { ADMIN_TOKEN, testIssuer, type TestIssuer } from './app.ts';
import { freshDatabase, itUnless, postgresAvailability } from './services.ts';

/** An audit entry as GET /admin/v1/audit answers it. */
export interface AuditEntry {
  at: string;
  actor: { user_id: string | null; name: string; via: string };
  action: string;
  target: string | null;
  eid: string | null;
  ip: string | null;
  details: Record<string, unknown>;
}

export interface AuditAnswer {
  entries: AuditEntry[];
  next_cursor: string | null;
  has_more: boolean;
}

/** One page of the audit trail, read with the admin token (`query`: eid, user_id, limit, cursor). */
export async function auditPage(app: App, query: Record<string, string> = {}): Promise<AuditAnswer> {
  const res = await app.inject({
    method: 'GET',
    url: '/admin/v1/audit',
    query,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as AuditAnswer;
}

/** The whole audit trail, newest first, page by page. */
export async function allAudit(app: App, query: Record<string, string> = {}): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  let cursor: string | null = null;
  do {
    const page: AuditAnswer = await auditPage(app, { ...query, limit: '1000', ...(cursor ? { cursor } : {}) });
    entries.push(...page.entries);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return entries;
}

/** The admin token's actor, as every entry of a request made with it names it. */
export const ADMIN_ACTOR = { user_id: null, name: 'admin token', via: 'admin_token' };

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A request with the admin token; its status is checked. */
export async function call(app: App, method: string, url: string, payload: unknown, status: number): Promise<Json> {
  const res = await app.inject({
    method: method as 'POST',
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
  return res.body === '' ? {} : (res.json() as Json);
}

/** Runs `work` and checks it added exactly one entry, the newest, saying `expected`; answers the work's answer. */
export async function recordsOne(
  app: App,
  work: () => Promise<Json>,
  expected: (answer: Json) => Partial<AuditEntry>,
): Promise<Json> {
  const before = await allAudit(app);
  const answer = await work();
  const after = await allAudit(app);
  assert.equal(after.length, before.length + 1, `one entry, got: ${JSON.stringify(after.slice(0, 3))}`);
  const entry = after[0]!;
  const want = { actor: ADMIN_ACTOR, ip: '127.0.0.1', ...expected(answer) };
  for (const [field, value] of Object.entries(want)) assert.deepEqual(entry[field as keyof AuditEntry], value, field);
  assert.match(entry.at, /^2026-06-01T12:00:00(\.\d+)?Z$/);
  return answer;
}

/** Runs `work` and checks it added no entry. */
export async function recordsNone(app: App, work: () => Promise<unknown>): Promise<void> {
  const before = await allAudit(app);
  await work();
  assert.deepEqual(await allAudit(app), before);
}

/** What an audit suite gets on one backend: the issuer, and raw SQL on its database (to plant faults). */
export interface AuditBackend {
  backend: 'SQLite' | 'PostgreSQL';
  skip: string | undefined;
  it: ReturnType<typeof itUnless>;
  issuer: () => TestIssuer;
  /** Runs SQL on the issuer's database through a connection of its own (`rows`: one query, its rows). */
  sql: (text: string, rows?: 'rows') => Promise<Record<string, unknown>[]>;
}

/**
 * Registers `suite` on a SQLite file and on a fresh PostgreSQL database (skipped loudly without a
 * server, a failure under REQUIRE_SERVICES=1); webhook receivers on loopback are allowed.
 */
export async function eachAuditBackend(title: string, suite: (run: AuditBackend) => void): Promise<void> {
  const pg = await postgresAvailability(`${title} on PostgreSQL`);
  for (const backend of ['SQLite', 'PostgreSQL'] as const) {
    const skip = backend === 'PostgreSQL' ? pg.skip : undefined;
    describe(`${title} (${backend})`, () => {
      let issuer: TestIssuer | undefined;
      let sql: AuditBackend['sql'] = async () => assert.fail('the issuer is not open');
      let cleanup = async () => {};
      before(async () => {
        if (skip !== undefined) return;
        if (backend === 'SQLite') {
          const dir = mkdtempSync(join(tmpdir(), 'audit-'));
          const path = join(dir, 'issuer.db');
          issuer = await testIssuer({ store: new SqliteStore(path), env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
          sql = async (text, rows) => {
            const db = new Database(path);
            try {
              db.pragma('busy_timeout = 5000');
              if (rows) return db.prepare(text).all() as Record<string, unknown>[];
              db.exec(text);
              return [];
            } finally {
              db.close();
            }
          };
          cleanup = async () => rmSync(dir, { recursive: true, force: true });
          return;
        }
        if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
        const database = await freshDatabase();
        issuer = await testIssuer({
          store: await PostgresStore.open(database.url),
          env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
        });
        sql = async (text) => {
          const client = new PgClient({ connectionString: database.url });
          await client.connect();
          try {
            const results = (await client.query(text)) as unknown as pg.QueryResult | pg.QueryResult[];
            return [results].flat().at(-1)?.rows ?? [];
          } finally {
            await client.end();
          }
        };
        cleanup = database.drop;
      });
      after(async () => {
        await issuer?.close();
        await cleanup();
      });
      suite({
        backend,
        skip,
        it: itUnless(skip),
        issuer: () => issuer ?? assert.fail('the issuer is not open'),
        sql: (text, rows) => sql(text, rows),
      });
    });
  }
}
