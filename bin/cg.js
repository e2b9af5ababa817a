#!/usr/bin/env node
// Launcher: compiles the one-file CLI bundle (dist/cli.cjs) with the V8 code cache the build made
// for it (dist/cli.cjs.cache), so a start-up deserialises bytecode instead of parsing and compiling
// 270 KB of JavaScript. It is CommonJS (bin/package.json) because Node 20 has a public code cache
// only for scripts (vm.Script cachedData), not for ES modules, and a CommonJS entry also spares the
// ES module loader. The cache is used only when its header names this very bundle (the build's hash
// on the bundle's first line) and V8 accepts it (same V8, same flags); else the bundle compiles as
// usual. The bundle's own `import()` calls (the lazily loaded packages) come back here: a script
// compiled by node:vm cannot run `import()` itself on Node 20; re2js is compiled here the same way,
// from a code cache of its own (requireCached).
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join } = require('node:path');
const { Script } = require('node:vm');

const bundle = join(__dirname, '..', 'dist', 'cli.cjs');
// The build's hash of the bundle is on its first line, `/*cg-bundle:<hash>*\/`, with `:utf8` after
// it when the bundle is not ASCII; an ASCII file read as latin1 is a plain copy, no decoding.
let source = readFileSync(bundle, 'latin1');
const [, id, utf8] = /^\/\*cg-bundle:([0-9a-f]+)(:utf8)?\*\//.exec(source) ?? [];
if (utf8 || !id) source = readFileSync(bundle, 'utf8');
// Set only by scripts/build.mjs: where to write the cache after this run (training runs), which
// also reads its cache from there, so each training run builds on the one before it.
const cacheOut = process.env.CG_BUILD_CODE_CACHE;

// The commands started most have a code cache of their own (dist/cli.cjs.<kind>.cache, kinds in
// cache-kind.js): V8 deserialises the whole of a cache whatever the run then calls, and the cache
// trained on every command is 0.7 MB, ≈ 7 ms more to read in than the pipe's own and ≈ 10 ms more
// than --version's. Anything else, or a kind whose file is missing, reads dist/cli.cjs.cache.
const { cacheKind } = require('./cache-kind.js');

/** The code cache in `file` when its first line is `header`; else undefined (absent, or for another source). */
function readCache(file, header) {
  try {
    const data = readFileSync(file);
    return data.toString('latin1', 0, header.length) === header ? data.subarray(header.length) : undefined;
  } catch {
    return undefined;
  }
}

/** After a training run (CG_BUILD_CODE_CACHE), the caches to write: [file, header, script, what]. */
const trained = [];

// The bundle is one function expression (scripts/code-cache.mjs wraps it): compiled as read, with no
// wrapped copy of its 0.5 MB made here.
/** The bundle's code cache for this run: the training run's own, else this command's, else the general one. */
function bundleCache() {
  if (!id) return undefined;
  if (cacheOut) return readCache(cacheOut, `${id}\n`);
  const kind = cacheKind(process.argv.slice(2));
  return (kind && readCache(`${bundle}.${kind}.cache`, `${id}\n`)) || readCache(`${bundle}.cache`, `${id}\n`);
}

const script = new Script(source, { filename: bundle, cachedData: bundleCache() });
if (cacheOut) trained.push([cacheOut, `${id}\n`, script, '']);
const cli = { exports: {} };
const requireHere = createRequire(bundle);
/**
 * Loaded on first use, not when the bundle's modules initialise: each brings a dozen of Node's own
 * modules with it (streams, sockets, readline, watchers), and the cheapest runs never call them
 * (node:net is for a Redis store's address, node:fs/promises for work the pipe does synchronously).
 */
const DEFERRED = new Set(['node:fs/promises', 'node:net', 'node:child_process']);
function deferred(id) {
  let exports;
  const load = () => (exports ??= requireHere(id));
  return new Proxy(
    {},
    {
      get: (_, key) => load()[key],
      has: (_, key) => key in load(),
      ownKeys: () => Reflect.ownKeys(load()),
      getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(load(), key),
    },
  );
}
const bundleRequire = (id) => (DEFERRED.has(id) ? deferred(id) : requireHere(id));
bundleRequire.resolve = requireHere.resolve;
/**
 * Packages the hot paths import that ship a CommonJS build with the same exports: require spares the
 * ES module loader (resolve, link, compile without a cache: ≈ 10 ms of a compacting hook call).
 */
const REQUIRED = ['re2js', 'gpt-tokenizer'];
/**
 * Of those, the ones that are one file, compiled here with a code cache of their own the build
 * trained (dist/<name>.cache) as it trains the bundle's: re2js, for the filters' regexes, costs
 * ≈ 7 ms to compile and as much again to compile what a first match runs. The cache's header names
 * the package's version and the file's size: V8 checks only a source's length, so a cache made for
 * another release must be told apart here. Anything amiss (no package.json, no cache) is a plain require.
 */
const CACHED = new Set(['re2js']);
const loaded = new Map();
function requireCached(name) {
  const file = requireHere.resolve(name);
  let version;
  try {
    const pkg = JSON.parse(readFileSync(join(file, '..', '..', 'package.json'), 'utf8'));
    if (pkg.name === name) version = pkg.version;
  } catch {}
  if (typeof version !== 'string') return requireHere(name);
  const source = readFileSync(file, 'utf8');
  const header = `${name}@${version}:${source.length}\n`;
  const cacheFile = join(__dirname, '..', 'dist', `${name}.cache`);
  const wrapped = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData: readCache(cacheFile, header),
  });
  const mod = { exports: {} };
  wrapped.runInThisContext()(mod.exports, createRequire(file), mod, file, join(file, '..'));
  if (cacheOut) trained.push([join(cacheOut, '..', `${name}.cache`), header, wrapped, ` (${name})`]);
  return mod.exports;
}
function requirePackage(specifier) {
  if (!CACHED.has(specifier)) return requireHere(specifier);
  if (!loaded.has(specifier)) loaded.set(specifier, requireCached(specifier));
  return loaded.get(specifier);
}
/**
 * The bundle's `import()`. A builtin (`node:zlib`, `node:child_process`) or a REQUIRED package comes
 * from require, as a namespace-like object (its exports, and the same as `default`), which spares
 * starting the ES module loader for it; a file beside the bundle (`./ioredis.js`) is imported from
 * dist/, as the bundle would have; any other package is imported.
 */
function importFor(specifier) {
  if (specifier.startsWith('node:')) {
    return Promise.resolve().then(() => {
      const exports = requireHere(specifier);
      return Object.create(exports, { default: { value: exports, enumerable: true } });
    });
  }
  if (specifier.startsWith('./') || specifier.startsWith('../')) {
    return import(require('node:url').pathToFileURL(join(__dirname, '..', 'dist', specifier)).href);
  }
  if (REQUIRED.some((name) => specifier === name || specifier.startsWith(`${name}/`))) {
    return Promise.resolve().then(() => {
      const exports = requirePackage(specifier);
      return Object.create(exports, { default: { value: exports, enumerable: true } });
    });
  }
  return import(specifier);
}
script.runInThisContext()(cli.exports, bundleRequire, cli, bundle, join(__dirname, '..', 'dist'), importFor);

// How a failed write to stdout ends cg, whether it went straight to descriptor 1 (until something
// builds process.stdout: src/stdout.ts) or through the stream. A reader that stops early
// (`cg --help | head`) closes the pipe: end quietly, like any Unix filter, with the exit code
// already set (cg run: the command's). Any other failure (disk full, I/O error) is one line and a
// non-zero exit (cg run keeps a failing command's own code) — unless a handler that takes over
// (cg run, while the command still runs) marked the error handled.
function onStdoutError(err) {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  if (err.handled) return;
  process.stderr.write(`cg: cannot write output: ${err.message}\n`);
  process.exit(process.exitCode || 1);
}
if (!cli.exports.writeStdoutDirectly(onStdoutError)) process.stdout.on('error', onStdoutError);

cli.exports.main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    if (!cacheOut) return;
    // The build chains its training runs through this file: say so if V8 refused the last one's.
    for (const [file, header, compiled, what] of trained) {
      if (compiled.cachedDataRejected) process.stderr.write(`cg: code cache rejected${what}\n`);
      writeFileSync(file, Buffer.concat([Buffer.from(header), compiled.createCachedData()]));
    }
  },
  (err) => {
    process.stderr.write(`cg: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
