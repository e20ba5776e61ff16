import { hostname } from 'node:os';
import { join } from 'node:path';
import { type Command, parse, type Parsed, USAGE, UsageError } from './cli/args.ts';
import { annulJson, enrollJson, human, scanJson, syncJson } from './cli/format.ts';
import type { LineContext } from './cli/scan-line.ts';
import { checkInRestOfGroup } from './cli/group.ts';
import { LineReader } from './cli/lines.ts';
import { enroll, parseSetupUri } from './enroll.ts';
import { isKeyRejected, KEY_REJECTED_LINE, ScannerError, StateCorruptError } from './errors.ts';
import { nodeHttpTransport } from './node-http.ts';
import type { ScanResult } from './scan-result.ts';
import type { Transport } from './transport.ts';
import { Scanner } from './scanner.ts';
import { FsStorage } from './storage/fs.ts';

/** Writes one result line: JSON or the human form. */
function emit<T>(json: boolean | undefined, value: T, text: (value: T) => string, asJson?: (value: T) => unknown) {
  process.stdout.write(`${json ? JSON.stringify(asJson ? asJson(value) : value) : text(value)}\n`);
}

/** One line on stderr, prefixed, secrets masked. */
function complain(message: string): void {
  const line = message
    .replace(/\s+/g, ' ')
    .replace(/sk_live_[A-Za-z0-9_-]+/g, 'sk_live_…')
    .replace(/\bst_[A-Za-z0-9_-]+/g, 'st_…')
    .trim();
  process.stderr.write(`ticket-scanner: ${line}\n`);
}

async function withScanner<T>(
  { values }: Parsed,
  transport: Transport,
  readOnly: boolean,
  run: (scanner: Scanner) => Promise<T>,
): Promise<T> {
  const dir = values.state!;
  const scanner = await Scanner.open(await FsStorage.open(dir), { readOnly, transport });
  try {
    return await run(scanner);
  } finally {
    await scanner.close();
  }
}

async function runEnroll({ values, positionals }: Parsed, transport: Transport): Promise<number> {
  const uri = positionals[0]!;
  parseSetupUri(uri);
  const storage = await FsStorage.create(values.state!);
  const result = await enroll(storage, uri, {
    // A device enrolled again keeps its name unless --name gives another.
    name: values.name,
    defaultName: `ticket-scanner@${hostname()}`,
    platform: `ticket-scanner/0.1 node/${process.versions.node}`,
    transport,
  });
  emit(values.json, result, human.enroll, enrollJson);
  // The enrolment stands whatever the first sync did: exit 0, and one line when it did not complete.
  if (!result.synced) {
    const why = result.sync_problem?.message ?? 'the changes feed or the gates could not be read';
    complain(
      `enrolled, but the first sync failed (${why}): offline verdicts know no revocation or check-in until "ticket-scanner sync" succeeds`,
    );
  } else if (result.sync_problem !== null) {
    complain(`enrolled and synced, but the first sync left a problem: ${result.sync_problem.message}`);
  }
  return 0;
}

/** Prints verdicts in input order; input that is not a token is named on stderr. */
function printVerdicts(
  results: ScanResult[],
  firstPosition: number,
  json: boolean | undefined,
  context: (index: number) => LineContext = () => ({}),
): number {
  let unreadable = 0;
  results.forEach((result, index) => {
    emit(json, result, (r) => human.scan(r, context(index)), scanJson);
    if (result.idempotency_key === null && result.reason === 'NOT_FOUND') {
      complain(`input ${firstPosition + index} is a short code that no ticket of this event has; nothing was queued`);
    } else if (result.idempotency_key === null) {
      unreadable += 1;
      complain(`input ${firstPosition + index} is not a ticket token (no compact JWS with a tid); nothing was queued`);
    }
  });
  return unreadable;
}

async function runScan(parsed: Parsed, transport: Transport): Promise<number> {
  const { values, positionals } = parsed;
  const exits = parsed.command === 'exit';
  return withScanner(parsed, transport, false, async (scanner) => {
    const options = { offline: values.offline ?? false, gate: values.gate ?? null };
    scanner.gateFor(options.gate);
    let position = 1;
    let unreadable = 0;
    const handle = async (tokens: string[]) => {
      // Offline, tokens available together are stored with one write; online, one by one.
      const step = options.offline ? 1000 : 1;
      for (let i = 0; i < tokens.length; i += step) {
        const batch = tokens.slice(i, i + step);
        const results = exits ? await scanner.exit(batch, options) : await scanner.scan(batch, options);
        const gate = scanner.gateFor(options.gate);
        const context = (index: number) => ({ gates: scanner.gates, gate, token: batch[index] });
        unreadable += printVerdicts(results, position, values.json, context);
        position += batch.length;
        if (values.group && !exits) {
          let queued = 0;
          for (const result of results) {
            const members = await checkInRestOfGroup(scanner, result, gate, options.offline);
            printVerdicts(members, position, values.json, () => ({ gates: scanner.gates, gate }));
            queued += members.length;
          }
          // The members went into the queue: online, they go up at once, in one upload.
          if (queued > 0 && !options.offline) await scanner.sync();
        }
      }
    };
    if (positionals.length > 0) await handle(positionals.map((token) => token.trim()));
    else {
      const reader = new LineReader(process.stdin);
      try {
        for (let lines = await reader.next(); lines !== null; lines = await reader.next()) {
          await handle(lines.map((line) => line.trim()).filter((line) => line !== ''));
        }
      } finally {
        reader.close();
      }
    }
    return unreadable > 0 ? 1 : 0;
  });
}

/** Exit code of an annul the issuer (or the device, offline) refused. */
const ANNUL_REFUSED = 4;

async function runAnnul(parsed: Parsed, transport: Transport): Promise<number> {
  return withScanner(parsed, transport, false, async (scanner) => {
    const result = await scanner.annul(parsed.positionals[0], { offline: parsed.values.offline ?? false });
    emit(parsed.values.json, result, human.annul, annulJson);
    if (result.annulled) return 0;
    complain(`not annulled (${result.reason}): ${result.message}`);
    return ANNUL_REFUSED;
  });
}

async function runSync(parsed: Parsed, transport: Transport): Promise<number> {
  return withScanner(parsed, transport, false, async (scanner) => {
    const result = await scanner.sync();
    emit(parsed.values.json, result, human.sync, syncJson);
    if (result.remaining > 0) {
      complain(`${result.remaining} scan(s) remain queued${result.problem ? `: ${result.problem.message}` : ''}`);
      return 3;
    }
    if (result.problem) {
      complain(result.problem.message);
      return 1;
    }
    return 0;
  });
}

async function runStatus(parsed: Parsed, transport: Transport): Promise<number> {
  return withScanner(parsed, transport, true, async (scanner) => {
    emit(parsed.values.json, scanner.status(), human.status);
    return 0;
  });
}

const RUN: Record<Command, (parsed: Parsed, transport: Transport) => Promise<number>> = {
  enroll: runEnroll,
  scan: runScan,
  exit: runScan,
  annul: runAnnul,
  sync: runSync,
  status: runStatus,
};

/** The ticket-scanner CLI: parse, call the library, print. Never throws; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  // One HTTP stack for the whole command: node:http with kept-alive connections, closed on the way out.
  const transport = nodeHttpTransport();
  let parsed: Parsed | null = null;
  try {
    parsed = parse(args);
    if (parsed === null) {
      process.stdout.write(USAGE);
      return 0;
    }
    return await RUN[parsed.command](parsed, transport);
  } catch (error) {
    if (isKeyRejected(error)) {
      // Not a ticket verdict and not a refusal of any scan: the scans stay queued. Exactly this line.
      process.stderr.write(`${KEY_REJECTED_LINE}\n`);
      return 1;
    }
    if (error instanceof StateCorruptError && parsed?.values.state !== undefined) {
      complain(error.messageAt(join(parsed.values.state, error.file)));
      return 1;
    }
    const usage =
      error instanceof UsageError ||
      (error instanceof ScannerError && (error.code === 'INVALID_SETUP_URI' || error.code === 'INVALID_OPTION'));
    complain(error instanceof Error ? error.message : String(error));
    return usage ? 2 : 1;
  } finally {
    transport.close();
  }
}
