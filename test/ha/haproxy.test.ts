import assert from 'node:assert/strict';
import { readFileSync, readlinkSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { after, before, describe } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../helpers/server.ts';
import { itUnless } from '../helpers/services.ts';
import { Authority, trustInThisProcess } from './certificates.ts';
import { Haproxy, type HaproxyAddresses, haproxyMissing } from './haproxy.ts';
import { account, RunDirectory, until } from './processes.ts';

const missing = haproxyMissing();
if (missing !== null) process.stderr.write(`\n!!! ${missing}: HAProxy configuration tests SKIPPED\n\n`);
const it = itUnless(missing ?? undefined);

/** How a stand-in instance behaves: serves; drops a check-in without answering (it died mid-request); not ready; answers garbage. */
type Mode = 'serve' | 'cut' | 'unready' | 'junk';

/** A stand-in for an issuer instance: /readyz, and a check-in answered with who served it and what arrived. */
class Instance {
  mode: Mode = 'serve';
  checkIns = 0;
  /** Every request but /readyz: method, path with query, body. */
  readonly got: string[] = [];
  readonly server: Server;

  constructor(readonly name: string) {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    if (req.url === '/readyz') {
      res.writeHead(this.mode === 'unready' ? 503 : 200, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    this.checkIns += 1;
    this.got.push(`${req.method} ${req.url} ${body}`);
    if (this.mode === 'cut') return req.socket.destroy();
    if (this.mode === 'junk') return req.socket.end('this is not HTTP\r\n\r\n');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ served_by: this.name, got: body }));
  }
}

/** A stand-in for a Patroni node: GET /primary (200 on the primary), and a "PostgreSQL" port that names the node. */
class PatroniNode {
  primary = false;
  readonly rest = createServer((req, res) => res.writeHead(this.primary ? 200 : 503).end());
  readonly sessions = new Set<Socket>();
  readonly postgres: TcpServer = createTcpServer((socket) => {
    this.sessions.add(socket);
    socket.on('close', () => this.sessions.delete(socket));
    socket.on('error', () => undefined);
    socket.write(this.name);
  });

  constructor(readonly name: string) {}
}

const port = (server: Server | TcpServer) => (server.address() as { port: number }).port;
const listen = (server: Server | TcpServer) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

/** Connects to `at` and resolves with the first thing said and the socket (kept open). */
function firstWords(at: number): Promise<{ said: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect(at, '127.0.0.1');
    socket.once('data', (chunk: Buffer) => resolve({ said: chunk.toString(), socket }));
    socket.once('error', reject);
  });
}

describe('deploy/haproxy/haproxy.cfg in front of stand-in issuers and Patroni nodes', () => {
  let run: RunDirectory;
  let haproxy: Haproxy;
  const instances = ['issuer1', 'issuer2', 'issuer3'].map((name) => new Instance(name));
  const nodes = ['pg1', 'pg2', 'pg3'].map((name) => new PatroniNode(name));
  const setModes = (...modes: Mode[]) => instances.forEach((instance, i) => (instance.mode = modes[i]!));

  before(async () => {
    if (missing) return;
    for (const instance of instances) await listen(instance.server);
    for (const node of nodes) await Promise.all([listen(node.rest), listen(node.postgres)]);
    nodes[0]!.primary = true;
    run = new RunDirectory('issuer-haproxy-');
    const authority = Authority.make(run.dir('tls'), 'gates');
    trustInThisProcess(authority.ca);
    const [http, postgres] = [await freePort(), await freePort()];
    haproxy = await Haproxy.start(run, {
      http,
      postgres,
      certificate: authority.issue('haproxy', ['127.0.0.1']).bundle,
      issuers: instances.map((i) => `127.0.0.1:${port(i.server)}`) as [string, string, string],
      postgresNodes: nodes.map((n) => ({
        address: `127.0.0.1:${port(n.postgres)}`,
        restPort: port(n.rest),
      })) as HaproxyAddresses['postgresNodes'],
    });
    await haproxy.waitUp('issuers', ['issuer1', 'issuer2', 'issuer3']);
  });
  after(async () => {
    await run?.destroy();
    for (const server of [...instances.map((i) => i.server), ...nodes.flatMap((n) => [n.rest, n.postgres])]) {
      if ('closeAllConnections' in server) server.closeAllConnections();
      server.close();
    }
    for (const node of nodes) node.sessions.forEach((socket) => socket.destroy());
  });

  const checkIn = (key: string) =>
    fetch(`${haproxy.url}/api/v1/tickets/check-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ idempotency_key: key }),
    });

  it('runs as the haproxy user, confined to an empty directory', () => {
    const [pid, ...others] = run.processesIn(join(run.path, 'haproxy'));
    assert.ok(pid !== undefined && others.length === 0, 'one HAProxy process');
    const { uid } = account('haproxy');
    assert.match(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
      new RegExp(`^Uid:\\t${uid}\\t${uid}\\t${uid}\\t${uid}$`, 'm'),
    );
    assert.equal(readlinkSync(`/proc/${pid}/root`), join(run.path, 'haproxy', 'empty'));
  });

  it('a check-in cut by an instance that dies mid-request is sent, whole, to another instance', async () => {
    setModes('cut', 'serve', 'serve');
    instances.forEach((instance) => (instance.checkIns = 0));
    for (let n = 0; n < 9; n += 1) {
      const res = await checkIn(`key-${n}`);
      assert.equal(res.status, 200);
      const answer = (await res.json()) as { served_by: string; got: string };
      assert.notEqual(answer.served_by, 'issuer1');
      assert.deepEqual(JSON.parse(answer.got), { idempotency_key: `key-${n}` }, 'the same body, under the same key');
    }
    assert.ok(instances[0]!.checkIns > 0, 'the dying instance was sent check-ins, and cut them');
  });

  it('serves the issuers over TLS only, with the certificate its file names', async () => {
    // fetch trusts the test's authority (and the usual ones): the answer proves the certificate and its name.
    assert.equal((await fetch(`${haproxy.url}/readyz`)).status, 200);
    const plain = await fetch(`http://127.0.0.1:${haproxy.ports.http}/readyz`).then(
      (res) => res.status,
      () => 'refused',
    );
    assert.notEqual(plain, 200, 'plain HTTP gets no answer from an instance');
  });

  it('a write without an idempotency key cut by a dying instance is answered 503, never sent to another instance; a read is sent again', async () => {
    setModes('cut', 'serve', 'serve');
    await haproxy.waitUp('issuers', ['issuer1', 'issuer2', 'issuer3']);
    instances.forEach((instance) => instance.got.splice(0));
    // HAProxy answers a cut request 503 (its 502), or, on a connection that already carried a request,
    // closes it without an answer (as HTTP lets it, for the client to decide): either way, not 200.
    const outcomes: (number | 'closed')[] = [];
    for (let n = 0; n < 9; n += 1) {
      const res = await fetch(`${haproxy.url}/admin/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `not-a-scan-${n}` },
        body: JSON.stringify({ name: `event ${n}` }),
      }).catch(() => null);
      outcomes.push(res?.status ?? 'closed');
      await res?.arrayBuffer();
    }
    const cut = instances[0]!.got;
    assert.ok(cut.length > 0, 'the dying instance was sent some');
    assert.equal(
      outcomes.filter((outcome) => outcome !== 200).length,
      cut.length,
      `each one it cut unanswered: ${outcomes.join(' ')}`,
    );
    assert.ok(outcomes.every((outcome) => outcome === 200 || outcome === 503 || outcome === 'closed'));
    const elsewhere = [...instances[1]!.got, ...instances[2]!.got];
    for (const request of cut) assert.ok(!elsewhere.includes(request), `${request} was not sent again`);
    assert.equal(elsewhere.length, 9 - cut.length, 'the others got each of the rest once');

    instances.forEach((instance) => instance.got.splice(0));
    for (let n = 0; n < 6; n += 1) {
      const res = await fetch(`${haproxy.url}/admin/v1/events?page=${n}`);
      assert.equal(res.status, 200, 'a cut read is answered by another instance');
      assert.notEqual(((await res.json()) as { served_by: string }).served_by, 'issuer1');
    }
    assert.ok(instances[0]!.got.length > 0, 'the dying instance was sent reads, and cut them');
  });

  it('logs each request with its path but never its query string: no single sign-on code or state in the log', async () => {
    setModes('serve', 'serve', 'serve');
    const code = `code-${randomUUID()}`;
    const state = `state-${randomUUID()}`;
    const res = await fetch(`${haproxy.url}/admin/v1/sso/callback?code=${code}&state=${state}`);
    assert.equal(res.status, 200);
    assert.ok(
      instances.some((instance) => instance.got.some((line) => line.includes(code))),
      'the instance got it whole',
    );
    let lines: string[] = [];
    await until(
      'the request in HAProxy’s log',
      () =>
        (lines = run
          .logTail('haproxy', Infinity)
          .split('\n')
          .filter((line) => line.includes('/admin/v1/sso/callback'))).length > 0,
      5_000,
    );
    assert.match(lines[0]!, /"GET" "\/admin\/v1\/sso\/callback"/);
    const log = run.logTail('haproxy', Infinity);
    assert.ok(!log.includes(code) && !log.includes(state) && !log.includes('code='), log);
  });

  it('an instance whose /readyz answers 503 gets no requests; with none ready HAProxy answers 503 with Retry-After and the envelope', async () => {
    setModes('unready', 'serve', 'serve');
    await until('issuer1 DOWN', async () => (await haproxy.states('issuers')).get('issuer1') === 'DOWN', 10_000);
    instances.forEach((instance) => (instance.checkIns = 0));
    for (let n = 0; n < 6; n += 1) assert.equal((await checkIn(`ready-${n}`)).status, 200);
    assert.equal(instances[0]!.checkIns, 0);

    setModes('unready', 'unready', 'unready');
    await until(
      'every instance DOWN',
      async () => [...(await haproxy.states('issuers')).values()].every((s) => s === 'DOWN'),
      10_000,
    );
    const res = await checkIn('none-ready');
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '2');
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), {
      error: {
        code: 'UNAVAILABLE',
        message: 'no issuer instance can answer right now; retry later',
        details: { retry_after_seconds: 2 },
      },
    });
  });

  it('an instance that answers garbage on every try gives 503 with Retry-After and the envelope (HAProxy’s 502), never a bare 5xx', async () => {
    setModes('junk', 'junk', 'junk');
    await haproxy.waitUp('issuers', ['issuer1', 'issuer2', 'issuer3']);
    const res = await checkIn('junk');
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '2');
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'UNAVAILABLE');
  });

  it('the PostgreSQL port leads to the node Patroni calls primary; when that changes, sessions to the old one are cut', async () => {
    await until(
      'pg1 alone UP',
      async () => {
        const states = await haproxy.states('postgres');
        return states.get('pg1') === 'UP' && states.get('pg2') === 'DOWN' && states.get('pg3') === 'DOWN';
      },
      10_000,
    );
    const first = await firstWords(haproxy.ports.postgres);
    assert.equal(first.said, 'pg1');
    const cut = new Promise<void>((resolve) => first.socket.once('close', () => resolve()));

    nodes[0]!.primary = false;
    nodes[2]!.primary = true;
    await until(
      'pg3 alone UP',
      async () => {
        const states = await haproxy.states('postgres');
        return states.get('pg1') === 'DOWN' && states.get('pg3') === 'UP';
      },
      10_000,
    );
    await Promise.race([cut, sleep(3000).then(() => assert.fail('the session to the demoted node stayed open'))]);
    const second = await firstWords(haproxy.ports.postgres);
    assert.equal(second.said, 'pg3');
    second.socket.destroy();
  });
});
