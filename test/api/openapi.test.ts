import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ADMIN_TOKEN, SPEC_CLIENT_ERROR_CODES, scenario, testIssuer, type TestIssuer } from '../helpers/app.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const REDOCLY = join(process.cwd(), 'node_modules/@redocly/cli/bin/cli.js');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Every operation of the document, with where it is. */
function operations(doc: Json): { where: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ where: `${m.toUpperCase()} ${path}`, op: item[m] as Json })),
  );
}

/** Runs `redocly lint` (recommended rules) on the document, in an empty directory so no local config applies. */
async function redoclyLint(doc: Json): Promise<Json> {
  const dir = await mkdtemp(join(tmpdir(), 'openapi-'));
  try {
    await writeFile(join(dir, 'openapi.json'), JSON.stringify(doc));
    const run = promisify(execFile)(
      process.execPath,
      [REDOCLY, 'lint', 'openapi.json', '--format=json', '--extends=recommended'],
      { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
    // Redocly exits 1 when it finds errors; its report is on stdout either way.
    const { stdout } = await run.catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    return JSON.parse(stdout) as Json;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the OpenAPI document (GET /openapi.json)', () => {
  let t: TestIssuer;
  let doc: Json;
  before(async () => {
    t = await testIssuer();
    const res = await t.app.inject({ url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    doc = res.json();
  });
  after(() => t.close());

  it(
    'passes redocly lint with the recommended rules: 0 errors, and no warning but a redirect lacking a 2xx',
    { timeout: 60_000 },
    async () => {
      const report = await redoclyLint(doc);
      // A browser navigation (single sign-on's start and callback) answers only with a redirect: no 2xx.
      const redirects = new Set(
        Object.entries(doc.paths as Json).flatMap(([path, item]) =>
          METHODS.filter((m) => item[m]?.responses?.['302']).map(
            (m) => `#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${m}/responses`,
          ),
        ),
      );
      const onlyRedirects = (p: Json) =>
        p.ruleId === 'operation-2xx-response' && redirects.has(String(p.location?.[0]?.pointer));
      // The contract names both paths: a tid is a ULID, never the literal `by-code`, and the router
      // takes the literal segment first, so the pair never meets.
      const contractPair = (p: Json) =>
        p.ruleId === 'no-ambiguous-paths' &&
        String(p.message).includes('`/api/v1/events/{eid}/tickets/{tid}/group`') &&
        String(p.message).includes('`/api/v1/events/{eid}/tickets/by-code/{code}`');
      const problems = (report.problems as Json[])
        .filter((p) => !onlyRedirects(p) && !contractPair(p))
        .map((p) => `${p.severity} ${p.ruleId} at ${p.location?.[0]?.pointer}: ${p.message}`);
      assert.deepEqual(problems, []);
      const accepted = (report.problems as Json[]).filter(onlyRedirects).length;
      assert.equal(accepted, redirects.size, 'only the redirecting operations lack a 2xx');
      const pair = (report.problems as Json[]).filter(contractPair).length;
      assert.ok(pair <= 1, 'one ambiguous pair at most: the contract’s group and by-code paths');
      assert.deepEqual(report.totals, { errors: 0, warnings: accepted + pair, ignored: 0 });
    },
  );

  it('every operation has an operationId, a summary, and a description on each response', () => {
    const ids = new Set<string>();
    for (const { where, op } of operations(doc)) {
      assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, `${where}: operationId`);
      assert.ok(!ids.has(op.operationId), `${where}: operationId ${op.operationId} is unique`);
      ids.add(op.operationId);
      assert.ok(op.summary, `${where}: summary`);
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const description = (response as Json).description as string | undefined;
        assert.ok(description && description !== 'Default Response', `${where} ${status}: description`);
      }
      assert.ok(
        Object.keys(op.responses).some((s) => s.startsWith('2') || s === '302'),
        `${where}: a 2xx answer (or the redirect of a browser navigation)`,
      );
    }
  });

  it('names its schemas in components and refers to them instead of inlining them', () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      'ErrorEnvelope',
      'Ticket',
      'CheckInRequest',
      'CheckInAnswer',
      'EnrollRequest',
      'EnrollAnswer',
      'Scanner',
      'Event',
      'EventDetail',
      'Change',
      'Conflict',
      'DiscoveryDocument',
    ]) {
      assert.ok(names.includes(name), `components.schemas.${name}`);
    }
    assert.ok(!/"def-\d+"/.test(JSON.stringify(doc)), 'no anonymous def-N schemas');
    const inlineEnvelopes: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return;
      if ((node as Json).properties?.error?.properties?.code) inlineEnvelopes.push(at);
      for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`);
    };
    walk(doc.paths, '#/paths');
    assert.deepEqual(inlineEnvelopes, [], 'the error envelope is never inlined');
    const checkIn = doc.paths['/api/v1/tickets/check-in'].post;
    assert.equal(checkIn.requestBody.content['application/json'].schema.$ref, '#/components/schemas/CheckInRequest');
    assert.equal(
      checkIn.responses['401'].content['application/json'].schema.$ref,
      '#/components/schemas/ErrorEnvelope',
    );
  });

  it('the error envelope names its codes: the spec table, CONFLICT (409) and INTERNAL', () => {
    const codes = doc.components.schemas.ErrorEnvelope.properties.error.properties.code.enum as string[];
    for (const code of [...SPEC_CLIENT_ERROR_CODES, 'CONFLICT', 'INTERNAL']) assert.ok(codes.includes(code), code);
    assert.ok(!codes.includes('INVALID_SIGNATURE'), 'invalid_signature is an outcome with its own schema');
  });

  it('two bearer schemes, scanner API key and admin token, applied per route; none on discovery and enrolment', () => {
    const { ConsoleSession: consoleSession, MetricsToken: metricsToken, ...schemes } = doc.components.securitySchemes;
    assert.deepEqual(Object.keys(schemes).sort(), ['AdminToken', 'ScannerApiKey']);
    // The organizer console's session cookie, used by its own session routes (see console-session tests).
    assert.deepEqual([consoleSession.type, consoleSession.in], ['apiKey', 'cookie']);
    // GET /metrics only: METRICS_TOKEN, or the admin token when it is unset.
    assert.deepEqual(doc.paths['/metrics'].get.security, [{ MetricsToken: [] }]);
    for (const scheme of [...Object.values(schemes), metricsToken] as Json[]) {
      assert.equal(scheme.type, 'http');
      assert.equal(scheme.scheme, 'bearer');
      assert.ok(scheme.description);
    }
    assert.equal(doc.security, undefined, 'no document-wide default');
    const securityOf = (path: string, method: string) => doc.paths[path][method].security;
    assert.deepEqual(securityOf('/.well-known/ticket-issuer.json', 'get'), []);
    assert.deepEqual(securityOf('/api/v1/scanners/enroll', 'post'), []);
    for (const [path, method] of [
      ['/api/v1/tickets/check-in', 'post'],
      ['/api/v1/tickets/{tid}/status', 'get'],
      ['/api/v1/events/{eid}/changes', 'get'],
    ] as const) {
      assert.deepEqual(securityOf(path, method), [{ ScannerApiKey: [] }], path);
    }
    // The console's sign-in, accepting an invitation and single sign-on need no credential.
    const publicAdmin = / \/admin\/v1\/(?:session|invitations\/accept|sso\/)/;
    for (const { where, op } of operations(doc).filter(
      (o) => / \/admin\/v1\//.test(o.where) && !publicAdmin.test(o.where),
    )) {
      assert.deepEqual(op.security, [{ AdminToken: [] }], where);
    }
  });

  it('documents response headers: X-Request-Id on all, Retry-After on 429, ETag and Cache-Control on discovery, Idempotent-Replayed on check-in', () => {
    for (const { where, op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        assert.ok((response as Json).headers?.['X-Request-Id'], `${where} ${status}: X-Request-Id`);
        if (status === '429') assert.ok((response as Json).headers['Retry-After'], `${where} 429: Retry-After`);
      }
    }
    const discovery = doc.paths['/.well-known/ticket-issuer.json'].get.responses;
    for (const status of ['200', '304']) {
      assert.ok(discovery[status].headers.ETag && discovery[status].headers['Cache-Control'], status);
    }
    assert.ok(doc.paths['/api/v1/tickets/check-in'].post.responses['200'].headers['Idempotent-Replayed']);
  });

  it('the QR code routes answer 200 with an image: image/svg+xml and image/png', async () => {
    const s = await scenario(t.app);
    for (const [ext, type] of [
      ['svg', 'image/svg+xml'],
      ['png', 'image/png'],
    ] as const) {
      const documented = doc.paths[`/admin/v1/tickets/{tid}/qr.${ext}`].get.responses['200'];
      assert.deepEqual(Object.keys(documented.content), [type]);
      assert.equal(documented.content[type].schema.format, 'binary');
      const res = await t.app.inject({
        url: `/admin/v1/tickets/${s.tid}/qr.${ext}`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(String(res.headers['content-type']).split(';')[0], type);
    }
  });

  it("carries the spec's examples: the check-in request and each outcome, enrolment", () => {
    assert.equal(doc.components.schemas.CheckInRequest.example.scanned_at, '2026-05-01T18:30:00Z');
    assert.ok(doc.components.schemas.EnrollRequest.example.token.startsWith('st_'));
    const checkIn = doc.paths['/api/v1/tickets/check-in'].post.responses;
    const outcomes = Object.values(checkIn['200'].content['application/json'].examples as Json).map(
      (e) => (e as Json).value.status,
    );
    assert.deepEqual(outcomes.sort(), ['already_used', 'expired', 'revoked', 'valid', 'wrong_event']);
    assert.ok(checkIn['400'].content['application/json'].examples.invalid_signature);
    const enroll = doc.paths['/api/v1/scanners/enroll'].post.responses;
    assert.ok(enroll['200'].content['application/json'].examples.enrolled.value.api_key.startsWith('sk_live_'));
    assert.equal(enroll['403'].content['application/json'].examples.revoked.value.error.code, 'TOKEN_REVOKED');
  });

  it('a body that requires no field may be left out (revoke, reissue, rotate)', () => {
    assert.equal(doc.paths['/admin/v1/tickets/{tid}/reissue'].post.requestBody.required, false);
    assert.equal(doc.paths['/admin/v1/signing-keys/rotate'].post.requestBody.required, false);
    assert.equal(doc.paths['/api/v1/tickets/check-in'].post.requestBody.required, true);
  });
});
