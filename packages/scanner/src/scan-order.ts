/** The order in which a list of scanned inputs is taken, the same at the entry and at the exit. */
import type { ScanResult } from './scan-result.ts';
import { isShortCode } from './typed-code.ts';

/**
 * One verdict per input, in order: a typed short code on its own (`code`); offline, each run of
 * tokens together (`run`, stored with one write); online, one token at a time (`one`).
 */
export async function scanInOrder(
  tokens: readonly string[],
  offline: boolean,
  code: (typed: string) => Promise<ScanResult>,
  run: (tokens: readonly string[]) => Promise<ScanResult[]>,
  one: (token: string) => Promise<ScanResult>,
): Promise<ScanResult[]> {
  const results: ScanResult[] = [];
  for (let i = 0; i < tokens.length;) {
    if (isShortCode(tokens[i]!)) results.push(await code(tokens[i++]!));
    else if (offline) {
      let end = i;
      while (end < tokens.length && !isShortCode(tokens[end]!)) end++;
      results.push(...(await run(tokens.slice(i, end))));
      i = end;
    } else results.push(await one(tokens[i++]!));
  }
  return results;
}
