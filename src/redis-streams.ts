import type { Duplex } from 'node:stream';

/**
 * ioredis listens for a connection's `error` with `once`, twice (its connector, then the client), and
 * both fire on the first error. A TLS socket can emit a second one: a handshake the server refuses (no
 * client certificate, another authority) gives the TLS alert, then ECONNRESET. With no listener left,
 * that second error ended the process. Here each stream ioredis's connectors open (the client's, and
 * those of the clients it opens to ask the Sentinels) keeps a listener of its own that ignores what
 * ioredis has already been told; ioredis's handlers, and its reconnecting, are unchanged. Once per
 * process, however often it is called.
 */
export async function guardRedisStreams(): Promise<void> {
  guarded ??= (async () => {
    const { StandaloneConnector, SentinelConnector } = await import('ioredis/built/connectors/index.js');
    for (const Connector of [StandaloneConnector, SentinelConnector]) {
      const prototype = Connector.prototype as { connect: (...args: unknown[]) => Promise<Duplex> };
      const connect = prototype.connect;
      prototype.connect = async function (this: unknown, ...args: unknown[]) {
        const stream = await connect.apply(this, args);
        stream.on('error', ignore);
        return stream;
      };
    }
  })();
  return guarded;
}

let guarded: Promise<void> | null = null;
const ignore = () => undefined;
