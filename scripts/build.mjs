// Build: bundles src/cli.ts and src/index.ts into dist/ with esbuild, one file each, so start-up
// loads one module instead of a chain of chunks. Heavy dependencies (tokenizer, YAML, TOON) stay
// external: they are imported lazily from node_modules only when a decision needs them.
// The CLI is a CommonJS script (dist/cli.cjs) that bin/cg.js compiles with a V8 code cache; the
// build trains that cache on the common commands (scripts/code-cache.mjs). The library stays ESM.
// Builtin filters (builtin-filters/*.yaml) are validated here — schema, every regex, every inline
// test, by the engine itself — and shipped as dist/builtin-filters.json (+ .tests.json, the inline
// tests and YAML), read only when filters are first needed; a failing filter test fails the build.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { finishCliBundle, trainCodeCache } from './code-cache.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const banner = {
  js: "import { createRequire as __cgCreateRequire } from 'node:module'; const require = __cgCreateRequire(import.meta.url);",
};
// web-tree-sitter finds its own tree-sitter.wasm, and src/code/parser.ts the grammars, next to
// the installed packages: both must stay in node_modules, not in the bundle.
const external = [
  'gpt-tokenizer',
  'gpt-tokenizer/*',
  'yaml',
  '@toon-format/toon',
  're2js',
  // The sandbox's QuickJS loads its own .wasm beside the installed package, inside a worker.
  'quickjs-emscripten',
  // commander is needed only for arguments beyond the bare filter (`cmd | cg` takes a fast path):
  // bundled, its 55 KB would be compiled on every start-up.
  'commander',
  'web-tree-sitter',
  'tree-sitter-wasms',
  // chalk is only for `cg stats` on a terminal; bundled, its node:tty/node:os imports would be
  // hoisted into every start-up.
  'chalk',
  // jsonc-parser is for `cg init` and `cg doctor` only (host settings files).
  'jsonc-parser',
  // undici is only for `cg proxy`'s upstream requests; bundled, its 550 KB would be parsed on every
  // start-up.
  'undici',
];

// The Redis client (src/store/redis-link.ts imports it on a store URL's first command) is bundled
// apart as dist/ioredis.js: measured here, a Redis-backed `cg expand` started 100-140 ms sooner than
// with the package's module tree, and nothing else loads it.
const redisChunk = {
  name: 'redis-chunk',
  setup(b) {
    b.onResolve({ filter: /^ioredis$/ }, () => ({ path: './ioredis.js', external: true }));
  },
};

// What every bundle here shares: one ESM file for Node 20, heavy dependencies left external.
const common = {
  outdir: 'dist',
  bundle: true,
  external,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  banner,
  logLevel: 'warning',
};

await build({ ...common, entryPoints: { 'precompile-filters': 'src/dsl/builtins.ts' } });
const precompile = new URL('../dist/precompile-filters.js', import.meta.url);
const { precompileBuiltins, splitBundle } = await import(precompile.href);
let bundle;
try {
  bundle = await precompileBuiltins(fileURLToPath(new URL('../builtin-filters/', import.meta.url)));
} catch (err) {
  bundle = err instanceof Error ? err : new Error(String(err));
}
rmSync(precompile, { force: true });
if (bundle instanceof Error) {
  console.error(`build failed: builtin filter ${bundle.message}`);
  process.exit(1);
}
for (const [name, json] of Object.entries(splitBundle(bundle))) {
  writeFileSync(new URL(`../dist/${name}`, import.meta.url), json);
}

// The tokenizers' vocabularies as binary tables (src/bpe/table.ts), read beside the bundle in a few
// milliseconds where gpt-tokenizer's rank modules take 0.2–0.4 s to load on every count.
await build({ ...common, entryPoints: { 'build-tables': 'src/bpe/table.ts' } });
const tableModule = new URL('../dist/build-tables.js', import.meta.url);
const { BpeTable } = await import(tableModule.href);
rmSync(tableModule, { force: true });
for (const name of ['o200k', 'cl100k']) {
  const ranks = (await import(`gpt-tokenizer/bpeRanks/${name}_base`)).default;
  writeFileSync(new URL(`../dist/${name}.bpe`, import.meta.url), BpeTable.build(ranks));
}

await build({
  ...common,
  stdin: {
    contents: "export { Redis } from 'ioredis';",
    resolveDir: fileURLToPath(new URL('..', import.meta.url)),
  },
  outdir: undefined,
  outfile: 'dist/ioredis.js',
  minify: true,
  legalComments: 'eof',
});

// What the shipped bundles share: smaller source compiles faster at every start (about 16 ms
// here); nothing in cg reads a function's or class's name, and the sandbox worker's source is
// self-contained (src/llm/sandbox.ts).
const shipped = {
  ...common,
  plugins: [redisChunk],
  define: { CG_VERSION: JSON.stringify(pkg.version) },
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  // CG_BUILD_NAMES=1 keeps function names, for a readable `node --cpu-prof` profile of the bundle.
  minifyIdentifiers: process.env.CG_BUILD_NAMES !== '1',
};
await build({ ...shipped, entryPoints: { index: 'src/index.ts' } });
// The CLI as a script for bin/cg.js: `import.meta.url` becomes the bundle's own file URL (made once:
// the filters, the tokenizer tables and the lazy requires each ask for it, and pathToFileURL costs
// ~0.1 ms a call), and the bundle's `import()` calls go through the launcher (finishCliBundle).
await build({
  ...shipped,
  entryPoints: { cli: 'src/cli.ts' },
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  banner: {
    js: "let __cgUrl; const __cgImportMeta = { get url() { return (__cgUrl ??= require('node:url').pathToFileURL(__filename).href); } };",
  },
  define: { ...shipped.define, 'import.meta': '__cgImportMeta' },
});
const cli = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
await finishCliBundle(cli);
trainCodeCache(fileURLToPath(new URL('../bin/cg.js', import.meta.url)), `${cli}.cache`);
