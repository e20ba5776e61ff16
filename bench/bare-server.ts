/**
 * The floor every HTTP figure is compared with: a bare node:http server that reads a JSON body,
 * parses it and answers a small JSON document, with nothing else on the path. It prints its port.
 */
import { createServer } from 'node:http';

const answer = JSON.stringify({ status: 'valid', ticket: { tid: '01J0000000000000000000000', checked_in_at: null } });

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (chunks.length > 0) JSON.parse(Buffer.concat(chunks).toString('utf8'));
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    response.end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
