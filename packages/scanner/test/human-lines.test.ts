import assert from 'node:assert/strict';
import { test } from 'node:test';
import { human } from '../src/cli/format.ts';
import type { ScanResult } from '../src/scan-result.ts';

const result = (verdict: ScanResult['verdict'], reason: string): ScanResult =>
  ({
    verdict,
    reason,
    tid: '01J0000000000000000000TID1',
    source: 'issuer',
    synced: true,
    attention: false,
    checkin_texts: [],
  }) as unknown as ScanResult;

test('the human scan line keeps the ticket id in one column whatever the reason, the longest included', () => {
  const lines = [
    human.scan(result('admit', 'valid')),
    human.scan(result('reject', 'already_checked_in')),
    human.scan(result('reject', 'entry_limit_reached')),
  ];
  const columns = lines.map((line) => line.indexOf('01J0000000000000000000TID1'));
  assert.ok(
    columns.every((column) => column === columns[0]),
    lines.join('\n'),
  );
  assert.match(lines[2]!, /^REJECT {2}entry_limit_reached {2}01J/);
});
