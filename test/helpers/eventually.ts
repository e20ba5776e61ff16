import assert from 'node:assert/strict';

/**
 * Waits until `check` holds, looking every `everyMs`, and resolves with how long that took. A check
 * that throws has not held yet; once `timeoutMs` has passed it fails naming `what` (and the last
 * error the check threw, if any).
 */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<number> {
  const started = Date.now();
  let last: unknown = null;
  for (;;) {
    try {
      if (await check()) return Date.now() - started;
    } catch (error) {
      last = error;
    }
    if (Date.now() - started > timeoutMs) {
      assert.fail(`waited ${timeoutMs} ms for ${what}${last === null ? '' : ` (last: ${String(last)})`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
