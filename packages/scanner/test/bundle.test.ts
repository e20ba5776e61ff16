import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { bundledCli, loadCli } from '../bin/bundle.js';
import { tempDir } from './issuer.ts';

/** A package with a CLI entry that answers what `value.ts` holds; files dated a minute ago unless `now`. */
function makePackage(): { dir: string; write: (file: string, text: string, now?: boolean) => void } {
  const dir = tempDir('bundle-test-');
  mkdirSync(join(dir, 'src'));
  const write = (file: string, text: string, now = false) => {
    const path = join(dir, 'src', file);
    writeFileSync(path, text);
    if (!now) {
      const past = new Date(Date.now() - 60_000);
      utimesSync(path, past, past);
    }
  };
  write('cli.ts', "import { value } from './value.ts';\nexport const main = (): string => value;\n");
  write('value.ts', "export const value: string = 'first';\n");
  return { dir, write };
}

let imports = 0;
/** What the bundle's `main` answers (a fresh import each time: the module cache would keep the old one). */
async function run(bundle: string): Promise<string> {
  const module = (await import(`${pathToFileURL(bundle).href}?${++imports}`)) as { main: () => string };
  return module.main();
}

test('the CLI is bundled on first use and the bundle is reused while no source changes', async () => {
  const { dir } = makePackage();
  const bundle = await bundledCli({ packageDir: dir });
  assert.equal(bundle, join(dir, 'node_modules/.cache/ticket-scanner/cli.mjs'));
  assert.equal(await run(bundle), 'first');
  const made = statSync(bundle);
  assert.equal(await bundledCli({ packageDir: dir }), bundle);
  const kept = statSync(bundle);
  assert.deepEqual([kept.ino, kept.mtimeMs], [made.ino, made.mtimeMs], 'the bundle was made again');
});

test('a changed, replaced or removed source makes the bundle again', async () => {
  const { dir, write } = makePackage();
  const first = (await bundledCli({ packageDir: dir }))!;
  assert.equal(await run(first), 'first');

  write('value.ts', "export const value: string = 'second';\n");
  assert.equal(await run((await bundledCli({ packageDir: dir }))!), 'second');

  // Same size and date as before, but another file (npm replaces files and dates them all alike).
  write('value.ts', "export const value: string = 'third!';\n");
  const stamped = statSync(join(dir, 'src/value.ts'));
  write('value.ts', "export const value: string = 'fourth';\n");
  utimesSync(join(dir, 'src/value.ts'), stamped.atime, stamped.mtime);
  assert.equal(await run((await bundledCli({ packageDir: dir }))!), 'fourth');

  // A file the entry no longer imports is no source of the bundle any more.
  write('cli.ts', "export const main = (): string => 'alone';\n");
  await bundledCli({ packageDir: dir });
  write('value.ts', 'syntax error that would break a bundle that still read this file ((\n');
  assert.equal(await run((await bundledCli({ packageDir: dir }))!), 'alone');
});

test('no bundle is kept from a source edited while it was read, nor from one that does not compile', async () => {
  const { dir, write } = makePackage();
  write('value.ts', "export const value: string = 'being edited';\n", true);
  assert.equal(await bundledCli({ packageDir: dir }), null);

  write('value.ts', 'export const value: string = ;\n');
  assert.equal(await bundledCli({ packageDir: dir }), null);

  write('value.ts', "export const value: string = 'settled';\n");
  assert.equal(await run((await bundledCli({ packageDir: dir }))!), 'settled');
});

test('a damaged bundle is made again, and a cache that cannot be written gives no bundle', async () => {
  const { dir } = makePackage();
  const bundle = (await bundledCli({ packageDir: dir }))!;
  writeFileSync(bundle, 'garbage\n');
  assert.equal(await bundledCli({ packageDir: dir }), bundle);
  assert.match(readFileSync(bundle, 'utf8'), /^\/\/ ticket-scanner bundle /);
  assert.equal(await run(bundle), 'first');

  const blocked = join(dir, 'a-file');
  writeFileSync(blocked, '');
  assert.equal(await bundledCli({ packageDir: dir, cacheDir: join(blocked, 'cache') }), null);
});

test('a bundle damaged after it was written gives way to the sources, compiled as they load', async () => {
  const { dir } = makePackage();
  const bundle = (await bundledCli({ packageDir: dir }))!;
  const [head] = readFileSync(bundle, 'utf8').split('\n', 1);
  writeFileSync(bundle, `${head}\nexport const main = ;\n`);
  assert.equal(await bundledCli({ packageDir: dir }), bundle, 'the header still names the sources as they stand');
  const cli = (await loadCli({ packageDir: dir })) as unknown as { main: () => string };
  assert.equal(cli.main(), 'first');
});
