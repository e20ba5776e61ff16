import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * What the proxy does with traffic: `pass` forwards it; `reset` refuses new connections and resets the
 * open ones (a server that went away); `hang` accepts connections and forwards nothing either way, on
 * new and open ones alike (a network that went silent: the worst case, where only timeouts help).
 */
export type ProxyMode = 'pass' | 'reset' | 'hang';

/**
 * A TCP proxy for fault tests, in the spirit of toxiproxy: the issuer talks to PostgreSQL or Redis
 * through it, and the test cuts, silences and restores the path at will.
 */
export class FaultProxy {
  private mode: ProxyMode = 'pass';
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on a free loopback port and forwards to `target`. */
  static async start(target: { host: string; port: number }): Promise<FaultProxy> {
    let proxy: FaultProxy | null = null;
    const server = createServer((client) => proxy!.accept(client, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new FaultProxy(server, (server.address() as { port: number }).port);
    return proxy;
  }

  /** Changes what the proxy does from now on, open connections included. */
  set(mode: ProxyMode): void {
    this.mode = mode;
    for (const pair of this.pairs) {
      if (mode === 'reset') {
        pair.client.resetAndDestroy();
        pair.upstream.destroy();
      } else if (mode === 'hang') {
        pair.client.pause();
        pair.upstream.pause();
      } else {
        pair.client.resume();
        pair.upstream.resume();
      }
    }
  }

  /** How many connections pass through now. */
  get open(): number {
    return this.pairs.size;
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    client.on('error', () => undefined);
    if (this.mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    upstream.on('error', () => client.destroy());
    const pair = { client, upstream };
    this.pairs.add(pair);
    const forget = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', forget);
    upstream.on('close', forget);
    // Data is forwarded only while passing; a paused socket keeps what it has and reads no more.
    client.on('data', (chunk) => {
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on('data', (chunk) => {
      if (!client.write(chunk)) upstream.pause();
    });
    client.on('drain', () => this.mode === 'pass' && upstream.resume());
    upstream.on('drain', () => this.mode === 'pass' && client.resume());
    if (this.mode === 'hang') {
      client.pause();
      upstream.pause();
    }
  }

  /** Closes every connection and stops listening. */
  async close(): Promise<void> {
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    await new Promise((resolve) => this.server.close(resolve));
  }
}
