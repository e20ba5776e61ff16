/**
 * deploy/'s files are templates with `${NAME}` placeholders, filled in the way `envsubst` fills them
 * (docs/deploy.md), but strictly: a placeholder without a value, or a value nobody asked for, is an
 * error, so a file and the test that starts it cannot drift apart unnoticed.
 */
import { chmodSync, chownSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy');

const PLACEHOLDER = /\$\{([A-Z][A-Z0-9_]*)\}/g;

/** The placeholders a template names, each once. */
export function placeholders(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
}

/** `template` with every `${NAME}` replaced by `values[NAME]`; throws on a missing or an unused value. */
export function render(template: string, values: Record<string, string>, name = 'template'): string {
  const wanted = placeholders(template);
  const missing = wanted.filter((key) => values[key] === undefined);
  if (missing.length > 0) throw new Error(`${name}: no value for ${missing.join(', ')}`);
  const unused = Object.keys(values).filter((key) => !wanted.includes(key));
  if (unused.length > 0) throw new Error(`${name}: names no ${unused.join(', ')}`);
  return template.replace(PLACEHOLDER, (_, key: string) => values[key]!);
}

/** Renders deploy/`file` into `to` (mode 0600 unless given), owned by `owner` when set. */
export function renderFile(
  file: string,
  to: string,
  values: Record<string, string>,
  options: { mode?: number; owner?: { uid: number; gid: number } } = {},
): string {
  writeFileSync(to, render(readFileSync(join(DEPLOY, file), 'utf8'), values, `deploy/${file}`));
  chmodSync(to, options.mode ?? 0o600);
  if (options.owner) chownSync(to, options.owner.uid, options.owner.gid);
  return to;
}
