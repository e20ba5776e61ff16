// The CLI's sources bundled into one ES module on first use, kept in node_modules/.cache and made
// again whenever a source changes. Plain JavaScript: it runs before anything can compile TypeScript.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

/** Bumped when the build options change, so that bundles made with the old ones are made again. */
const FORMAT = 1;
const MARK = '// ticket-scanner bundle ';

/**
 * A source as it stands: modification time, size and inode (npm writes every package file with
 * the same old timestamp, and replaces a file rather than rewriting it), or null when it is gone.
 * @param {string} path
 * @returns {[number, number, number] | null}
 */
function stamp(path) {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats ? [stats.mtimeMs, stats.size, stats.ino] : null;
}

/**
 * Whether the bundle's first line names its sources exactly as they stand now.
 * @param {string} bundle
 */
function isFresh(bundle) {
  let head;
  try {
    head = readFileSync(bundle, 'utf8').split('\n', 1)[0];
  } catch {
    return false;
  }
  if (!head?.startsWith(MARK)) return false;
  try {
    const { format, sources } = JSON.parse(head.slice(MARK.length));
    if (format !== FORMAT || typeof sources !== 'object' || sources === null) return false;
    return Object.entries(sources).every(([path, was]) => JSON.stringify(stamp(path)) === JSON.stringify(was));
  } catch {
    return false;
  }
}

/**
 * Bundles `entry` and everything it imports (the workspace's TypeScript and its packages) into
 * `bundle`, through a temporary file and a rename so that a process starting meanwhile reads the
 * old bundle or the new one, never half of one. False when it cannot: no esbuild, a source that
 * does not compile, a cache that cannot be written, or a source that changed while it was read.
 * @param {string} packageDir
 * @param {string} entry
 * @param {string} bundle
 */
async function build(packageDir, entry, bundle) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return false;
  }
  // Whole milliseconds, and a second of margin for file systems with coarse timestamps.
  const started = Date.now() - 1000;
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: packageDir,
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
  } catch {
    return false;
  }
  const sources = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const path = resolve(packageDir, input);
    const now = stamp(path);
    // Edited while the build read it: this bundle may hold the old text under the new stamp.
    if (now === null || now[0] >= started) return false;
    sources[path] = now;
  }
  const code = `${MARK}${JSON.stringify({ format: FORMAT, sources })}\n${result.outputFiles[0].text}`;
  const temporary = `${bundle}.${process.pid}.tmp`;
  try {
    mkdirSync(join(bundle, '..'), { recursive: true });
    writeFileSync(temporary, code);
    renameSync(temporary, bundle);
    return true;
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Nothing was written where nothing can be.
    }
    return false;
  }
}

/** Where the package, its CLI's entry and the bundle are. */
function placesOf(options) {
  const packageDir = options.packageDir ?? fileURLToPath(new URL('..', import.meta.url));
  return {
    packageDir,
    entry: options.entry ?? join(packageDir, 'src/cli.ts'),
    bundle: join(options.cacheDir ?? join(packageDir, 'node_modules/.cache/ticket-scanner'), 'cli.mjs'),
  };
}

/**
 * The path of an up-to-date bundle of the package's CLI, made now if there is none or a source
 * changed; null when none can be had (the caller then runs the sources through tsx).
 * @param {{ packageDir?: string, entry?: string, cacheDir?: string }} [options]
 * @returns {Promise<string | null>}
 */
export async function bundledCli(options = {}) {
  const { packageDir, entry, bundle } = placesOf(options);
  if (isFresh(bundle)) return bundle;
  return (await build(packageDir, entry, bundle)) ? bundle : null;
}

/**
 * The CLI's module: from its bundle, else (no bundle, or one damaged after it was written) its
 * sources compiled by tsx as they load.
 * @param {{ packageDir?: string, entry?: string, cacheDir?: string }} [options]
 */
export async function loadCli(options = {}) {
  const bundle = await bundledCli(options);
  if (bundle !== null) {
    try {
      return await import(pathToFileURL(bundle).href);
    } catch {
      // Fall through to the sources.
    }
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(placesOf(options).entry).href);
}
