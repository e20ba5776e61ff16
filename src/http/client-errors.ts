import type { Socket } from 'node:net';
import { envelope } from './errors.ts';
import { API_SECURITY_HEADERS } from './security-headers.ts';

/** The API's security headers as raw header lines, for answers written straight to the socket. */
const SECURITY_HEADER_LINES = Object.entries(API_SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/** Errors of Node's HTTP parser and server, by code: the status and what to tell the client. */
const PARSER_ERRORS: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'the request headers are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'the request did not arrive in time' },
  ERR_HTTP_HEADERS_TIMEOUT: { status: 408, message: 'the request headers did not arrive in time' },
  HPE_UNEXPECTED_CONTENT_LENGTH: {
    status: 400,
    message: 'the request has conflicting Content-Length and Transfer-Encoding headers',
  },
  HPE_INVALID_TRANSFER_ENCODING: { status: 400, message: 'the Transfer-Encoding header is invalid' },
  HPE_INVALID_CONTENT_LENGTH: { status: 400, message: 'the Content-Length header is invalid' },
  HPE_INVALID_HEADER_TOKEN: { status: 400, message: 'a request header is malformed' },
  HPE_INVALID_METHOD: { status: 400, message: 'the request method is not valid' },
};

/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request (oversized or malformed
 * headers, smuggling shapes, timeouts) in the same envelope as every other error, then closes.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // A reset or a closed socket leaves nobody to answer.
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE') {
    socket.destroy();
    return;
  }
  const known = PARSER_ERRORS[error.code ?? ''] ?? { status: 400, message: 'the request is malformed' };
  const body = JSON.stringify(envelope('INVALID_REQUEST', known.message));
  socket.end(
    `HTTP/1.1 ${known.status} ${statusText(known.status)}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Cache-Control: no-store\r\nConnection: close\r\n' +
      SECURITY_HEADER_LINES +
      '\r\n' +
      body,
  );
}

function statusText(status: number): string {
  return (
    { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[status] ?? 'Bad Request'
  );
}
