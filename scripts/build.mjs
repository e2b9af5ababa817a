// Build: bundles src/cli.ts and src/index.ts into dist/ with esbuild, one file each, so start-up
// loads one module instead of a chain of chunks. Heavy dependencies (tokenizer, YAML, TOON) stay
// external: they are imported lazily from node_modules only when a decision needs them.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli.ts', index: 'src/index.ts' },
  outdir: 'dist',
  bundle: true,
  external: ['gpt-tokenizer', 'gpt-tokenizer/*', 'yaml', '@toon-format/toon'],
  format: 'esm',
  platform: 'node',
  target: 'node20',
  define: { CG_VERSION: JSON.stringify(pkg.version) },
  banner: {
    js: "import { createRequire as __cgCreateRequire } from 'node:module'; const require = __cgCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
});
