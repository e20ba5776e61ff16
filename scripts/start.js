// `npm start` (and `npm run reset-admin-token`): runs dist/<entry>.js, the compiled build of the
// sources, in this same process (npm's `exec` hands it the signals). A build that no longer matches
// the sources (a pull or an edit since `npm ci`) is made again first, so what runs is always what
// src/ says; if it cannot be made, nothing runs.
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { ENTRIES, ROOT, build, staleness } from './build.js';

const name = process.argv[2] ?? 'server';
if (!Object.hasOwn(ENTRIES, name)) {
  process.stderr.write(`usage: node scripts/start.js [${Object.keys(ENTRIES).join('|')}]\n`);
  process.exit(2);
}

const stale = staleness(name);
if (stale !== null) {
  const why = stale === 'missing' ? 'there was no build in dist/' : `${stale} changed since the last build`;
  const started = Date.now();
  try {
    await build();
  } catch (error) {
    process.stderr.write(`failed to start: ${why}, and the build failed: ${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`built dist/ again (${why}) in ${Date.now() - started} ms\n`);
}

await import(pathToFileURL(join(ROOT, 'dist', `${name}.js`)).href);
