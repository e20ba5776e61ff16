import { newShortCodes } from '../domain/short-codes.ts';

/**
 * Short codes for tickets that have none (an upgrade), one event after the other: each event's codes
 * differ from each other, whatever the chance, so the migration's unique index never meets a pair.
 * `rows` come in eid order.
 */
export function codesForEvents(rows: { eid: string; tid: string }[], taken: Map<string, Set<string>>): string[] {
  return rows.map(({ eid }) => {
    let seen = taken.get(eid);
    if (seen === undefined) {
      // Only the current event's codes are worth remembering: rows arrive in eid order.
      taken.clear();
      seen = new Set();
      taken.set(eid, seen);
    }
    for (;;) {
      const code = newShortCodes(1)[0]!;
      if (seen.has(code)) continue;
      seen.add(code);
      return code;
    }
  });
}
