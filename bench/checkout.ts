/**
 * Another commit of the issuer, ready to run beside this checkout: its files from `git archive` in a
 * directory outside the repository (kept between runs, one per commit), its dependencies, and its
 * build. Dependencies are this checkout's node_modules, linked entry by entry, when the other
 * lockfile asks for nothing this one does not hold at the same version (the same lockfile, or an
 * older one whose every package is still here); otherwise `npm ci` there.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Written last: a directory without it is a checkout that was cut off half-way, and is made again. */
const READY = '.bench-ready';

type Lock = { packages?: Record<string, { version?: string; link?: boolean }> };

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/**
 * Whether every package the other lockfile installs is installed here at the same place and version
 * (workspace links aside: each checkout links its own packages/).
 */
export function lockfileFits(other: Lock, here: Lock): boolean {
  for (const [path, entry] of Object.entries(other.packages ?? {})) {
    if (path === '' || entry.link || !path.startsWith('node_modules/')) continue;
    if (path.startsWith('node_modules/@ticket-issuer/')) continue;
    if (here.packages?.[path]?.version !== entry.version) return false;
  }
  return true;
}

/** node_modules of `dir`: a link to each of this checkout's entries, and the workspace's own packages. */
function linkDependencies(dir: string): void {
  const target = join(dir, 'node_modules');
  mkdirSync(target);
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name === '@ticket-issuer' || name === '.package-lock.json') continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(target, name));
  }
  const scope = join(target, '@ticket-issuer');
  mkdirSync(scope);
  for (const pkg of readdirSync(join(dir, 'packages'))) symlinkSync(join(dir, 'packages', pkg), join(scope, pkg));
}

/** The directory of `ref`'s issuer, built; made on the first call for that commit, reused after. */
export function prepareCheckout(ref: string, log: (line: string) => void): { dir: string; commit: string } {
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = resolve(process.env.BENCH_COMPARE_DIR ?? tmpdir(), `issuer-compare-${commit.slice(0, 12)}`);
  if (existsSync(join(dir, READY))) return { dir, commit };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['archive', '--format=tar', commit], { cwd: ROOT, maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  const lock = (root: string) => JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as Lock;
  const started = Date.now();
  if (lockfileFits(lock(dir), lock(ROOT))) {
    linkDependencies(dir);
    log(`${commit.slice(0, 12)}: dependencies linked from this checkout (its lockfile asks for nothing else)`);
  } else {
    log(`${commit.slice(0, 12)}: its lockfile differs, npm ci there (slow)`);
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  }
  execFileSync(process.execPath, ['scripts/build.js'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  writeFileSync(join(dir, READY), `${commit}\n`);
  log(`${commit.slice(0, 12)}: ready in ${dir} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  return { dir, commit };
}

/** Builds this checkout's dist/ when its sources changed since the last build (as `npm start` would). */
export function buildHere(): void {
  execFileSync(process.execPath, ['scripts/build.js'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
