// The issuer's build: each entry of src/ bundled by esbuild into one ES module in dist/, with the
// workspace's TypeScript inside (src/ and @ticket-issuer/protocol) and every npm package left in
// node_modules, imported at run time as before (better-sqlite3's native addon among them).
// Plain JavaScript: it runs before anything can compile TypeScript (`npm ci` through `prepare`,
// `npm run build`, and `npm start` when a source changed since the last build).
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

/** The project's root: this file is in scripts/, one level below it. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * What is built: dist/<name>.js from each source. The bundles sit one level below the root, as the
 * sources' src/paths.ts does, so that paths it resolves from import.meta.url are the same in both.
 */
export const ENTRIES = { server: 'src/server.ts', 'reset-admin-token': 'src/reset-admin-token.ts' };

/** The first line of every bundle: this mark, then the hash of each source it was made from. */
const MARK = '// ticket-issuer build ';

/** Files that shape every bundle beside its sources: the build's options and the TypeScript settings. */
const ALWAYS = ['scripts/build.js', 'tsconfig.json'];

const hashOf = (text) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/** A file's hash as it stands now, or null when it is gone. */
function hashFile(path) {
  try {
    return hashOf(readFileSync(path));
  } catch {
    return null;
  }
}

/**
 * Why dist/<name>.js is not the build of the sources as they are now (`missing`, or the first source
 * that changed, relative to the root), or null when it is.
 * @param {string} name
 * @param {{ root?: string }} [options]
 * @returns {string | null}
 */
export function staleness(name, options = {}) {
  const root = options.root ?? ROOT;
  return bundleStaleness(name, root) ?? scannerStaleness(root);
}

/** Why dist/<name>.js is not current, or null when it is. */
function bundleStaleness(name, root) {
  let head;
  try {
    head = readFileSync(join(root, 'dist', `${name}.js`), 'utf8').split('\n', 1)[0];
  } catch {
    return 'missing';
  }
  if (!head?.startsWith(MARK)) return 'missing';
  let sources;
  try {
    sources = JSON.parse(head.slice(MARK.length)).sources;
  } catch {
    return 'missing';
  }
  return changedSource(sources, root);
}

/** The first of `sources` ({path: hash}) whose file is not what was built, or null. */
function changedSource(sources, root) {
  for (const [path, was] of Object.entries(sources)) {
    if (hashFile(resolve(root, path)) !== was) return path;
  }
  return null;
}

/** Why dist/scan/ is not the build of the web scanner's sources as they are now, or null when it is. */
function scannerStaleness(root) {
  try {
    return changedSource(JSON.parse(readFileSync(join(root, SCANNER_OUT, SCANNER_SOURCES), 'utf8')), root);
  } catch {
    return 'missing';
  }
}

/**
 * Every import that names a package is left to Node at run time, except the workspace's own
 * packages (TypeScript sources that Node cannot load): those are bundled like src/.
 */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.kind === 'entry-point' || args.path.startsWith('@ticket-issuer/')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** Reads each TypeScript source once, hashing exactly the text esbuild compiles (an edit meanwhile cannot slip by). */
function hashingLoader(hashes) {
  return {
    name: 'hashing-loader',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const contents = readFileSync(args.path);
        hashes.set(args.path, hashOf(contents));
        return { contents, loader: 'ts' };
      });
    },
  };
}

/** Writes `text` to `path` through a temporary file and a rename: a reader sees the old file or the new one. */
function replaceFile(path, text) {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * Builds every entry into dist/. Each bundle's source map is written before the bundle, and each
 * bundle names in its first line the hashes of the sources it was made from (see `staleness`).
 * Throws with esbuild's first message when a source does not compile.
 * @param {{ root?: string }} [options]
 * @returns {Promise<string[]>} the bundles written, relative to the root
 */
export async function build(options = {}) {
  const root = options.root ?? ROOT;
  const esbuild = await import('esbuild');
  const hashes = new Map();
  const always = Object.fromEntries(ALWAYS.map((path) => [path, hashFile(join(root, path))]));
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, source]) => [name, `./${source}`])),
      outdir: 'dist',
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20.19',
      sourcemap: 'linked',
      sourcesContent: false,
      // A one-line placeholder, replaced by the line of hashes once they are known (the map's lines stay right).
      banner: { js: MARK.trimEnd() },
      plugins: [externalPackages, hashingLoader(hashes)],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
  } catch (error) {
    const first = error.errors?.[0];
    const where = first?.location ? `${first.location.file}:${first.location.line}: ` : '';
    throw new Error(first ? `${where}${first.text}` : String(error?.message ?? error));
  }
  mkdirSync(join(root, 'dist'), { recursive: true });
  const written = [];
  const files = new Map(result.outputFiles.map((file) => [relative(root, file.path), file.text]));
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    if (!output.endsWith('.js')) continue;
    const sources = { ...always };
    for (const input of Object.keys(meta.inputs)) {
      const path = resolve(root, input);
      sources[relative(root, path)] = hashes.get(path) ?? hashFile(path);
    }
    replaceFile(join(root, `${output}.map`), files.get(`${output}.map`));
    const text = files.get(output);
    replaceFile(join(root, output), `${MARK}${JSON.stringify({ sources })}${text.slice(MARK.trimEnd().length)}`);
    written.push(output);
  }
  try {
    written.push(...(await buildScanner(esbuild, root)));
  } catch (error) {
    const first = error.errors?.[0];
    const where = first?.location ? `${first.location.file}:${first.location.line}: ` : '';
    throw new Error(first ? `${where}${first.text}` : String(error?.message ?? error));
  }
  return written;
}

/** The web scanner (`/scan/`): its sources in web/scan/, built into dist/scan/ for the browser. */
export const SCANNER_SRC = 'web/scan';
export const SCANNER_OUT = 'dist/scan';
/** The hashes of every source of dist/scan/, written last: a build cut short is stale. */
const SCANNER_SOURCES = 'sources.json';
/** Files of web/scan/ served as they are. */
const SCANNER_STATIC = ['index.html', 'scan.css', 'gate.css', 'manifest.webmanifest', 'icon.svg'];
/** The QR decoder for browsers without BarcodeDetector: served by the issuer from its npm package. */
export const DECODER_WASM = 'zxing_reader.wasm';

/** The directory of the decoder's WASM file in node_modules. */
export function decoderWasmDir(root = ROOT) {
  const require = createRequire(join(root, 'package.json'));
  // The package exports no package.json: from its reader module (dist/cjs/reader/) to dist/reader/.
  return join(dirname(require.resolve('zxing-wasm/reader')), '..', '..', 'reader');
}

/**
 * Builds the web scanner into dist/scan/: app.js (the page's module, with the scanner package
 * inside) and its lazily loaded chunks, the static files, and sw.js, the service worker, which
 * names every file the page needs offline and a version that changes with any of them.
 */
async function buildScanner(esbuild, root) {
  const final = join(root, SCANNER_OUT);
  // Written aside, then swapped in: an issuer serving dist/scan/ meanwhile never sees half a build.
  const out = `${final}.${process.pid}.tmp`;
  const hashes = new Map();
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { app: `./${SCANNER_SRC}/app.ts` },
    outdir: relative(root, out),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome109', 'safari16', 'firefox115'],
    minify: true,
    chunkNames: 'chunks/[name]-[hash]',
    legalComments: 'linked',
    plugins: [hashingLoader(hashes)],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'chunks'), { recursive: true });
  try {
    writeScanner(root, out, result, hashes);
  } catch (error) {
    rmSync(out, { recursive: true, force: true });
    throw error;
  }
  const old = `${final}.${process.pid}.old`;
  rmSync(old, { recursive: true, force: true });
  try {
    renameSync(final, old);
  } catch {
    // No earlier build.
  }
  renameSync(out, final);
  rmSync(old, { recursive: true, force: true });
  return readdirSync(final)
    .filter((name) => name !== SCANNER_SOURCES)
    .map((name) => `${SCANNER_OUT}/${name}`);
}

/** Writes the web scanner's files into `out`: the bundles, the static files, sw.js, then sources.json. */
function writeScanner(root, out, result, hashes) {
  const sources = Object.fromEntries(ALWAYS.map((path) => [path, hashFile(join(root, path))]));
  for (const input of Object.keys(result.metafile.inputs)) {
    const path = resolve(root, input);
    sources[relative(root, path)] = hashes.get(path) ?? hashFile(path);
  }
  const served = [];
  const version = createHash('sha256');
  for (const file of result.outputFiles) {
    writeFileSync(file.path, file.contents);
    const name = relative(out, file.path);
    if (name.endsWith('.js') || name.endsWith('.css')) served.push(name);
    version.update(name).update(file.contents);
  }
  for (const name of SCANNER_STATIC) {
    const from = join(root, SCANNER_SRC, name);
    copyFileSync(from, join(out, name));
    sources[`${SCANNER_SRC}/${name}`] = hashFile(from);
    served.push(name);
    version.update(name).update(readFileSync(from));
  }
  const wasm = readFileSync(join(decoderWasmDir(root), DECODER_WASM));
  version.update(DECODER_WASM).update(wasm);
  served.push(DECODER_WASM);
  const worker = `${SCANNER_SRC}/sw.js`;
  const template = readFileSync(join(root, worker), 'utf8');
  sources[worker] = hashOf(template);
  const precache = ['./', ...served.filter((name) => name !== 'index.html')].sort();
  writeFileSync(
    join(out, 'sw.js'),
    template
      .replace("'__VERSION__'", JSON.stringify(version.update(template).digest('base64url').slice(0, 16)))
      .replace("['__FILES__']", JSON.stringify(precache)),
  );
  writeFileSync(join(out, SCANNER_SOURCES), `${JSON.stringify(sources)}\n`);
}

// `node scripts/build.js`: build now (npm ci's `prepare`, and `npm run build`).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  build().then(
    (written) => process.stderr.write(`built ${written.join(', ')} in ${Date.now() - started} ms\n`),
    (error) => {
      process.stderr.write(`build failed: ${error.message}\n`);
      process.exit(1);
    },
  );
}
