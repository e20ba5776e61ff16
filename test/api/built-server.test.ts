import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, enrollScanner, type RunningServer, startServer } from '../helpers/server.ts';

const ADMIN = 'built-server-admin-token-0123456789';

/** Every TypeScript file under `dir`, relative to the project. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file));
}

describe('paths in the build', () => {
  it('no source finds a project file from its own import.meta.url: once bundled, that URL is dist/<entry>.js', () => {
    const offenders = [...sources('src'), ...sources('packages/protocol/src')].filter((file) => {
      if (file === join('src', 'paths.ts')) return false;
      // createRequire(import.meta.url) resolves packages from node_modules: the same from src/ and dist/.
      const text = readFileSync(file, 'utf8').replace(/createRequire\(import\.meta\.url\)/g, '');
      return /import\.meta\.(url|dirname|filename)|__dirname|__filename/.test(text);
    });
    assert.deepEqual(offenders, [], 'use projectPath() from src/paths.ts');
  });
});

describe('the built server, run as `npm start` runs it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-built-'));
  const dbFile = join(dir, 'fresh', 'issuer.db');
  let server: RunningServer;
  before(async () => {
    server = await startServer({ DATABASE_URL: `sqlite:${dbFile}`, ADMIN_TOKEN: ADMIN }, { built: true });
  });
  after(async () => {
    await server?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('npm start runs the compiled bundle in dist/ with node alone: no TypeScript loader', () => {
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    assert.equal(scripts.start, 'MALLOC_ARENA_MAX=2 exec node --max-semi-space-size=8 scripts/start.js');
    assert.equal(scripts['reset-admin-token'], 'node scripts/start.js reset-admin-token');
    assert.match(scripts.prepare!, /scripts\/build\.js/, 'npm ci builds dist/');
    const argv = readFileSync(`/proc/${server.process.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    assert.deepEqual(argv.slice(1), ['scripts/start.js'], 'no --import, no loader');
    const bundle = readFileSync('dist/server.js', 'utf8');
    assert.doesNotMatch(bundle, /from "tsx|import\("tsx/, 'the bundle imports no tsx');
    assert.doesNotMatch(bundle, /from "[^"]+\.ts"/, 'every TypeScript source is compiled into the bundle');
    assert.doesNotMatch(bundle, /from "@ticket-issuer\//, 'the workspace protocol package is bundled, not imported');
  });

  it('migrates a fresh SQLite file and answers /healthz, /readyz and the discovery document', async () => {
    assert.ok(existsSync(dbFile), 'the database file was created');
    assert.equal((await call(`${server.url}/healthz`)).status, 200);
    assert.equal((await call(`${server.url}/readyz`)).status, 200);
    const discovery = await call(`${server.url}/.well-known/ticket-issuer.json`);
    assert.equal(discovery.status, 200);
    assert.equal(discovery.body.iss, 'https://issuer.test');
  });

  it('serves the console page and its own JS and CSS files from console/, and its vendor files from node_modules', async () => {
    const page = await fetch(`${server.url}/console/`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<script type="module" src="js\/main\.js">/);
    for (const [file, type] of [
      ['js/main.js', /javascript/],
      ['css/console.css', /text\/css/],
      ['vendor/uPlot.min.css', /text\/css/],
      ['vendor/papaparse.min.js', /javascript/],
    ] as const) {
      const asset = await fetch(`${server.url}/console/${file}`);
      assert.equal(asset.status, 200, file);
      assert.match(asset.headers.get('content-type') ?? '', type, file);
      assert.ok((await asset.text()).length > 100, `${file} has its content`);
    }
  });

  it('serves the OpenAPI document and its reference page', async () => {
    const doc = await call(`${server.url}/openapi.json`);
    assert.equal(doc.status, 200);
    assert.match(String(doc.body.openapi), /^3\./);
    const docs = await fetch(`${server.url}/docs/`);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /swagger/i);
  });

  it('a check-in round trip on the fresh file: valid, then already_used', async () => {
    const base = server.url;
    const event = await call(`${base}/admin/v1/events`, {
      bearer: ADMIN,
      body: { name: 'Built', event_date: new Date(Date.now() + 3_600_000).toISOString() },
    });
    assert.equal(event.status, 201, event.text);
    const eid = String(event.body.eid);
    const ticket = await call(`${base}/admin/v1/events/${eid}/tickets`, {
      bearer: ADMIN,
      body: { holder_name: 'Ada', ticket_type: 'GA' },
    });
    const tid = String(ticket.body.tid);
    const { scannerId, apiKey } = await enrollScanner(base, ADMIN, eid);
    const checkIn = { tid, eid, scanned_at: new Date().toISOString(), scanner_id: scannerId };
    const first = await call(`${base}/api/v1/tickets/check-in`, {
      bearer: apiKey,
      body: { ...checkIn, idempotency_key: randomUUID() },
    });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.status, 'valid');
    const second = await call(`${base}/api/v1/tickets/check-in`, {
      bearer: apiKey,
      body: { ...checkIn, idempotency_key: randomUUID() },
    });
    assert.equal(second.body.status, 'already_used');
  });
});
