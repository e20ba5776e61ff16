/**
 * A local SMTP server (`smtp-server`) in a thread of its own, for the mail benchmarks: a mail server
 * runs elsewhere, it should not share the issuer's event loop. It accepts every message and counts them.
 */
import { Worker } from 'node:worker_threads';

// The server's thread counts the messages it accepted in counts[0].
const SERVER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { SMTPServer } = require(workerData.module);
const counts = new Int32Array(workerData.counts);
const server = new SMTPServer({
  disabledCommands: ['STARTTLS', 'AUTH'], authOptional: true, logger: false, size: 10 * 1024 * 1024,
  onData(stream, session, callback) {
    stream.resume();
    stream.on('end', () => { Atomics.add(counts, 0, 1); callback(); });
  },
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.server.address().port));
`;

/** Starts the server; its port, how many messages it has accepted so far, and a way to stop it. */
export async function startSmtpThread(): Promise<{
  port: number;
  received: () => number;
  stop: () => Promise<number>;
}> {
  const counts = new Int32Array(new SharedArrayBuffer(4));
  const module = import.meta.resolve('smtp-server').replace(/^file:\/\//, '');
  const worker = new Worker(SERVER_SOURCE, { eval: true, workerData: { counts: counts.buffer, module } });
  const port = await new Promise<number>((resolve) => worker.once('message', resolve));
  return { port, received: () => Atomics.load(counts, 0), stop: () => worker.terminate() };
}
