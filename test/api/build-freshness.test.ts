import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { call, startServer } from '../helpers/server.ts';

/**
 * A copy of the project to edit (the sources of this working tree are never touched): its own src/,
 * scripts/ and settings, no dist/ yet, and this tree's console/ and node_modules/ by symbolic links.
 */
function projectCopy(): string {
  const root = mkdtempSync(join(tmpdir(), 'issuer-copy-'));
  for (const part of ['src', 'scripts', 'web', 'package.json', 'tsconfig.json']) {
    cpSync(part, join(root, part), { recursive: true });
  }
  symlinkSync(join(process.cwd(), 'console'), join(root, 'console'));
  symlinkSync(join(process.cwd(), 'node_modules'), join(root, 'node_modules'));
  return root;
}

const env = (dir: string) => ({ DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`, ADMIN_TOKEN: 'x'.repeat(32) });

describe('npm start runs the build of the sources as they are', () => {
  const root = projectCopy();
  after(() => rmSync(root, { recursive: true, force: true }));

  it('builds dist/ when there is none, again only when a source changed, and runs the new build', async () => {
    const first = await startServer(env(root), { built: true, root });
    assert.match(first.stderr(), /built dist\/ again \(there was no build in dist\/\)/);
    assert.equal((await call(`${first.url}/healthz`)).status, 200);
    await first.stop();
    // V8 keeps a script's source with a single character outside ASCII as two bytes a character: the
    // bundle's whole text would cost twice its memory in every issuer process.
    const lines = readFileSync(join(root, 'dist/server.js'), 'utf8').split('\n');
    const wide = lines.findIndex((line) => [...line].some((c) => c.charCodeAt(0) > 0x7f));
    assert.equal(wide, -1, `dist/server.js line ${wide + 1} is not ASCII: ${lines[wide]?.slice(0, 120)}`);

    const unchanged = await startServer(env(root), { built: true, root });
    assert.doesNotMatch(unchanged.stderr(), /built dist/, 'a current build is run as it is');
    await unchanged.stop();

    const server = join(root, 'src/server.ts');
    writeFileSync(
      server,
      readFileSync(server, 'utf8').replace('Ticket issuer listening on', 'Edited issuer listening on'),
    );
    const edited = await startServer(env(root), { built: true, root });
    assert.match(edited.stderr(), /built dist\/ again \(src\/server\.ts changed since the last build\)/);
    assert.match(edited.stderr(), /Edited issuer listening on/, 'the process runs the edited source');
    assert.equal((await call(`${edited.url}/healthz`)).status, 200);
    await edited.stop();

    // The web scanner is part of the build: an edit of its files is served after the next start.
    const css = join(root, 'web/scan/scan.css');
    writeFileSync(css, `${readFileSync(css, 'utf8')}\n.edited-mark {\n  color: red;\n}\n`);
    const restyled = await startServer(env(root), { built: true, root });
    assert.match(restyled.stderr(), /built dist\/ again \(web\/scan\/scan\.css changed since the last build\)/);
    const served = await fetch(`${restyled.url}/scan/scan.css`);
    assert.match(await served.text(), /\.edited-mark/);
    await restyled.stop();
  });

  it('a source that does not compile stops the start with one line naming it, and keeps the last build', () => {
    const bundle = readFileSync(join(root, 'dist/server.js'), 'utf8');
    writeFileSync(
      join(root, 'src/paths.ts'),
      `${readFileSync(join(root, 'src/paths.ts'), 'utf8')}\nexport const = ;\n`,
    );
    const result = spawnSync(process.execPath, ['scripts/start.js'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', PORT: '0', ...env(root) },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(result.status, 1, result.stderr);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(
      result.stderr,
      /^failed to start: src\/paths\.ts changed since the last build, and the build failed: src\/paths\.ts:\d+: /,
    );
    assert.equal(readFileSync(join(root, 'dist/server.js'), 'utf8'), bundle, 'the last build is left as it was');
  });
});
