/** The CLI's command line: its usage text, its commands and their options, and the parse. */
import { parseArgs } from 'node:util';

export const USAGE = `Usage: ticket-scanner <command> [options]

Commands:
  enroll <setup_uri> --state DIR [--name NAME]   enrol this device with a setup URI (ticket-issuer://enroll?…),
                                                 then sync once
  scan [TOKEN…] --state DIR [--offline] [--gate G] [--group]
                                                 one verdict per token or short code (XXXXX-XXXXX;
                                                 from the arguments, else one per line on stdin);
                                                 --group also checks in the others of each ticket's
                                                 group, one line each (offline too, by the roster)
  exit [TOKEN…] --state DIR [--offline] [--gate G]
                                                 exit scans: one verdict per token ("exit" or "reject")
  annul [IDEMPOTENCY_KEY] --state DIR [--offline]
                                                 undo an entry this device made (default: its last
                                                 admit); queued for the next sync when the issuer
                                                 cannot be reached, or with --offline
  sync --state DIR                               upload queued scans, pull the changes feed, the keys,
                                                 the rules and the roster
  status --state DIR                             who this scanner is and what it knows

Options:
  --json     one JSON document per line
  --help     this text

Exit codes: 0 done, 1 error, 2 usage error, 3 scans remain queued (sync),
4 the annul was refused (annul: the reason on stderr).
`;

/** A mistake in the command line: exit code 2. */
export class UsageError extends Error {}

const COMMON = { state: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } } as const;
const COMMANDS = {
  enroll: { options: { ...COMMON, name: { type: 'string' } }, positionals: [1, 1] },
  scan: {
    options: { ...COMMON, offline: { type: 'boolean' }, gate: { type: 'string' }, group: { type: 'boolean' } },
    positionals: [0, Infinity],
  },
  exit: { options: { ...COMMON, offline: { type: 'boolean' }, gate: { type: 'string' } }, positionals: [0, Infinity] },
  annul: { options: { ...COMMON, offline: { type: 'boolean' } }, positionals: [0, 1] },
  sync: { options: COMMON, positionals: [0, 0] },
  status: { options: COMMON, positionals: [0, 0] },
} as const;
export type Command = keyof typeof COMMANDS;

export interface Parsed {
  command: Command;
  values: {
    state?: string;
    json?: boolean;
    help?: boolean;
    name?: string;
    offline?: boolean;
    gate?: string;
    group?: boolean;
  };
  positionals: string[];
}

/** Parses the command line; throws UsageError; null when help was asked. */
export function parse(args: string[]): Parsed | null {
  const [command, ...rest] = args;
  if (command === undefined) throw new UsageError('missing command (enroll, scan, exit, annul, sync or status)');
  if (command === '--help' || command === '-h' || command === 'help') return null;
  if (!Object.hasOwn(COMMANDS, command)) throw new UsageError(`unknown command "${command.slice(0, 40)}"`);
  const spec = COMMANDS[command as Command];
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: spec.options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
  const values = parsed.values as Parsed['values'];
  if (values.help) return null;
  const [min, max] = spec.positionals;
  if (parsed.positionals.length < min) throw new UsageError(`${command}: missing argument (see --help)`);
  if (parsed.positionals.length > max)
    throw new UsageError(`${command}: unexpected argument "${parsed.positionals[max]!.slice(0, 40)}"`);
  if (!values.state) throw new UsageError(`${command}: --state DIR is required`);
  return { command: command as Command, values, positionals: parsed.positionals };
}
