import assert from 'node:assert/strict';

/** Waits until `check` holds, looking every `everyMs`; fails naming `what` once `timeoutMs` has passed. */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
