/**
 * What systemd would run for deploy/systemd/ticket-issuer.service: its [Service] section read as
 * systemd reads it (the settings this unit uses), and its EnvironmentFile. Where systemd is not the
 * init system (as in CI's containers), test/ha starts the issuer from this.
 */
import { readFileSync } from 'node:fs';

export interface ServiceUnit {
  user: string;
  workingDirectory: string;
  /** ExecStart split into the program and its arguments. */
  execStart: string[];
  environment: Record<string, string>;
  environmentFiles: string[];
  /** Every [Service] setting, by name, in order (a name set twice keeps both values). */
  settings: Map<string, string[]>;
}

/** Parses a unit file's [Service] section. */
export function parseServiceUnit(text: string): ServiceUnit {
  const settings = new Map<string, string[]>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    if (section !== 'Service' || eq < 0) continue;
    const key = line.slice(0, eq).trim();
    settings.set(key, [...(settings.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  const one = (key: string): string => {
    const values = settings.get(key);
    if (values?.length !== 1) throw new Error(`the unit sets ${key} ${values?.length ?? 0} times, not once`);
    return values[0]!;
  };
  const environment: Record<string, string> = {};
  for (const value of settings.get('Environment') ?? []) {
    for (const assignment of words(value)) {
      const eq = assignment.indexOf('=');
      environment[assignment.slice(0, eq)] = assignment.slice(eq + 1);
    }
  }
  const execStart = words(one('ExecStart'));
  // systemd's prefixes (-, @, +, !) and $VARIABLE expansion would change what runs: this unit uses none.
  if (!execStart[0]?.startsWith('/') || execStart.some((word) => word.includes('$'))) {
    throw new Error(`ExecStart is not an absolute program with plain arguments: ${execStart.join(' ')}`);
  }
  return {
    user: one('User'),
    workingDirectory: one('WorkingDirectory'),
    execStart,
    environment,
    environmentFiles: settings.get('EnvironmentFile') ?? [],
    settings,
  };
}

/** Reads an EnvironmentFile: `KEY=value` lines, `#` comments, values optionally in quotes. */
export function readEnvironmentFile(path: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) throw new Error(`${path}: not KEY=value: ${line}`);
    const value = match[2]!;
    values[match[1]!] = /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
  }
  return values;
}

/** Splits a command line as systemd does for the simple cases: spaces, and words in double quotes. */
function words(value: string): string[] {
  return [...value.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}
