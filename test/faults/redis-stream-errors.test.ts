import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { guardRedisStreams } from '../../src/redis-streams.ts';

/**
 * A connection's second error: a TLS handshake that Redis or a Sentinel refuses gives the alert, then
 * ECONNRESET, and ioredis's own listeners (`once`) are spent on the first. No real Redis is needed:
 * a server that accepts and says nothing, and the errors emitted on the client's stream as the socket
 * would emit them.
 */
describe('a Redis connection that errs twice', () => {
  it('does not end the process: the second error finds a listener, and the client still hears the first', async () => {
    await guardRedisStreams();
    const sockets: Socket[] = [];
    const server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, retryStrategy: () => null });
    const heard: string[] = [];
    redis.on('error', (error: Error) => heard.push(error.message));
    try {
      const connecting = redis.connect().catch(() => undefined);
      while (redis.stream === undefined || !redis.stream.listenerCount('error')) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      const stream = redis.stream;
      stream.emit('error', new Error('the TLS alert: certificate required'));
      assert.doesNotThrow(() => stream.emit('error', new Error('read ECONNRESET')));
      assert.deepEqual(heard, ['the TLS alert: certificate required']);
      stream.destroy();
      await connecting;
    } finally {
      redis.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
