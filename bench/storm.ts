/**
 * The offline-sync storm: many scanners come back online at once, each with a queue of offline
 * scans, and all sync together. Uses the scanner SDK as a scanner app would, on file storage.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { enroll, Scanner, type Transport } from '../packages/scanner/src/index.ts';
import { nodeHttpTransport } from '../packages/scanner/src/node-http.ts';
import { FsStorage } from '../packages/scanner/src/storage/fs.ts';
import { type Issuer, tempDir } from '../packages/scanner/test/issuer.ts';

export interface StormResult {
  scans: number;
  /** From the start until the last check-in was answered, and until every sync (feed and keys pulled too) ended. */
  uploadMs: number;
  ms: number;
  /** Outcomes the issuer gave, and scans refused or left in a queue (an error answer of any kind). */
  outcomes: Record<string, number>;
  refused: number;
  remaining: number;
}

/** Enrols `scanners` devices, queues `perScanner` offline scans on each (tickets of their own), then syncs all at once. */
export async function syncStorm(
  issuer: Issuer,
  eid: string,
  tokens: string[],
  scanners: number,
  perScanner: number,
): Promise<StormResult> {
  let lastCheckIn = 0;
  // Each device has its own connections, as the CLI has (node:http, kept alive), watched: when did the
  // last check-in answer arrive (a single check-in, or an upload of queued scans)?
  const transports = Array.from({ length: scanners }, () => nodeHttpTransport());
  const watched =
    (transport: Transport): Transport =>
    async (request) => {
      const answer = await transport(request);
      if (/\/(check-in|scans)$/.test(request.url)) lastCheckIn = Date.now();
      return answer;
    };
  const devices: Scanner[] = [];
  const dirs: string[] = [];
  for (let s = 0; s < scanners; s++) {
    dirs.push(tempDir('bench-scanner-'));
    const storage = await FsStorage.create(join(dirs[s]!, 'state'));
    const transport = watched(transports[s]!);
    await enroll(storage, await issuer.setupUri(eid), { name: `Gate scanner ${s + 1}`, transport });
    const scanner = await Scanner.open(storage, { transport });
    await scanner.scan(tokens.slice(s * perScanner, (s + 1) * perScanner), { offline: true });
    devices.push(scanner);
  }
  const started = Date.now();
  const results = await Promise.all(devices.map((scanner) => scanner.sync()));
  const ms = Date.now() - started;
  await Promise.all(devices.map((scanner) => scanner.close()));
  for (const transport of transports) transport.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  const outcomes: Record<string, number> = {};
  for (const result of results) {
    for (const [outcome, n] of Object.entries(result.outcomes)) outcomes[outcome] = (outcomes[outcome] ?? 0) + n;
  }
  return {
    scans: scanners * perScanner,
    uploadMs: lastCheckIn - started,
    ms,
    outcomes,
    refused: results.reduce((sum, r) => sum + r.refused, 0),
    remaining: results.reduce((sum, r) => sum + r.remaining, 0),
  };
}
