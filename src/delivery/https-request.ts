/** One HTTP(S) request to a delivery service (Google's token endpoint, the Wallet API): bounded in time, body kept short. */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';

export interface ServiceRequest {
  method: 'GET' | 'POST' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Extra certificate authorities to trust (PEM), beside the system's: a stand-in service in tests. */
  ca?: string | undefined;
  timeoutMs: number;
}

export interface ServiceReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The reply's body, cut at 64 KiB. */
  body: string;
}

const MAX_BODY = 64 * 1024;

/** Sends the request; resolves with any status, rejects only when no answer came (refused, reset, timed out). */
export function sendRequest(req: ServiceRequest): Promise<ServiceReply> {
  const url = new URL(req.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      url,
      {
        method: req.method,
        headers: {
          ...req.headers,
          ...(req.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(req.body)) }),
        },
        ...(req.ca === undefined ? {} : { ca: [...rootCertificates, req.ca] }),
        timeout: req.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_BODY) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8').slice(0, MAX_BODY),
          }),
        );
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => outgoing.destroy(new Error(`no answer within ${req.timeoutMs} ms`)), req.timeoutMs);
    outgoing.on('close', () => clearTimeout(timer));
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${req.timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}
