import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { storeConformance } from './conformance.ts';

storeConformance('SqliteStore (in memory)', async () => new SqliteStore(':memory:'));

const dir = mkdtempSync(join(tmpdir(), 'issuer-store-'));
storeConformance(
  'SqliteStore (file)',
  async () => new SqliteStore(join(dir, 'nested', 'issuer.db')),
  async () => rmSync(dir, { recursive: true, force: true }),
);
