/**
 * Signing in with an email address and password. In process (`app.inject`; SQLite on a temporary
 * file, every commit durable, then a fresh PostgreSQL database when one answers): one person invited
 * and their invitation accepted, then sign-ins one at a time with the right password, a wrong one and
 * an unknown address (each refusal is also a failure written for the hold; the address's failures are
 * cleared between rounds so no hold starts), and rounds of 4 sign-ins at once (libuv's 4 threads on
 * the machine's cores). Beside them, the scrypt hash alone. Target: a sign-in well under 300 ms.
 *
 * Run: node --import tsx bench/sign-in.ts [sign-ins per kind]   (default 30). Prints a table; never fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword, SCRYPT_COST } from '../src/domain/passwords.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { admin, appOn, type App, benchConfig, json, quantile } from './inject.ts';
import { freshPostgres } from './processes.ts';

const PER_KIND = Number(process.argv[2] ?? 30);
const PASSWORD = 'correct horse battery staple';
const config = benchConfig({ RATE_LIMIT_AUTH_FAILURES_PER_IP: '1000000' });
const dir = mkdtempSync(join(tmpdir(), 'issuer-bench-sign-in-'));

const ms = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;
const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
const stats = (values: number[]) => [0.5, 0.95, 1].map((q) => quantile(values, q).toFixed(0)).join(' / ');

async function signIn(app: App, email: string, password: string, expected: number): Promise<number> {
  const started = process.hrtime.bigint();
  const res = await app.inject({ method: 'POST', url: '/admin/v1/session', payload: { email, password } });
  if (res.statusCode !== expected) throw new Error(`sign-in answered ${res.statusCode}: ${res.body}`);
  return ms(started);
}

async function measure(name: string, store: Store): Promise<string[]> {
  const app = await appOn(config, store, false);
  const lines: string[] = [];
  try {
    const email = `bench-${Date.now()}@example.test`;
    const made = await json<{ invite_url: string }>(
      app.inject({
        method: 'POST',
        url: '/admin/v1/users',
        headers: admin,
        payload: { email, name: 'Bench', role: 'owner' },
      }),
    );
    const inviteToken = new URL(made.invite_url).hash.replace(/^#invite=/, '');
    await json(
      app.inject({
        method: 'POST',
        url: '/admin/v1/invitations/accept',
        payload: { invite_token: inviteToken, password: PASSWORD },
      }),
    );
    const kinds: [string, () => Promise<number>][] = [
      ['right password', () => signIn(app, email, PASSWORD, 201)],
      ['wrong password', () => signIn(app, email, 'not the password at all', 401)],
      ['unknown address', () => signIn(app, `nobody-${Date.now()}@example.test`, PASSWORD, 401)],
    ];
    for (const [kind, once] of kinds) {
      const times: number[] = [];
      for (let i = 0; i < PER_KIND; i += 1) {
        times.push(await once());
        if (i % 5 === 4) await store.people.clearSignInFailures(email);
      }
      lines.push(row([name, `${kind}, one at a time`, stats(times)]));
    }
    const together: number[] = [];
    for (let round = 0; round < Math.ceil(PER_KIND / 4); round += 1) {
      together.push(...(await Promise.all(Array.from({ length: 4 }, () => signIn(app, email, PASSWORD, 201)))));
    }
    lines.push(row([name, 'right password, 4 at once', stats(together)]));
  } finally {
    await app.close();
    await store.close();
  }
  return lines;
}

const hashes: number[] = [];
for (let i = 0; i < PER_KIND; i += 1) {
  const started = process.hrtime.bigint();
  await hashPassword(PASSWORD);
  hashes.push(ms(started));
}
const lines = [
  row(['—', `scrypt alone (ln=${SCRYPT_COST.ln}, r=${SCRYPT_COST.r}, p=${SCRYPT_COST.p})`, stats(hashes)]),
];
lines.push(...(await measure('SQLite', new SqliteStore(join(dir, 'issuer.db')))));
const pg = await freshPostgres();
if (pg) {
  try {
    lines.push(...(await measure('PostgreSQL', await PostgresStore.open(pg.url))));
  } finally {
    await pg.drop();
  }
} else {
  process.stdout.write('!!! PostgreSQL not reachable: its rows are left out\n');
}
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `\nSign-in with email and password, ${PER_KIND} of each kind (ms: median / p95 / max; target well under 300):\n\n` +
    ['| store | what | ms |', '|---|---|---:|', ...lines].join('\n') +
    '\n',
);
