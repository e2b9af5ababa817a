// The option tables of README.md and man/cg.1, written from the config field specs (src/config/
// fields.ts: each field's `.doc()`, its default as the file writes it) — the one place a default
// is written. Each table sits between markers, `<!-- generated:NAME -->…<!-- /generated:NAME -->`
// in the README and `.\" generated:NAME`…`.\" /generated:NAME` in the manual; nothing outside them
// is touched. `node scripts/docs.mjs` rewrites them (npm run docs), `--check` only says which drifted
// (exit 1). The specs are read from src/ through an esbuild bundle made in memory (no tsx, no
// build needed); test/unit/docs.test.ts regenerates in memory and fails on any drift.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const TARGETS = { readme: 'README.md', man: join('man', 'cg.1') };

/** The specs: `components` as [name, Section] in registry order, `config` the top-level Section. */
export async function loadSpecs(root = ROOT) {
  const { build } = await import('esbuild');
  const dir = join(root, 'src', 'components');
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
    .map((f) => f.slice(0, -3));
  const entry = [
    "import { COMPONENTS } from './src/components/index.ts';",
    "import { CONFIG } from './src/config.ts';",
    ...names.map((n, i) => `import * as m${i} from './src/components/${n}.ts';`),
    `const mods = { ${names.map((n, i) => `${JSON.stringify(n)}: m${i}`).join(', ')} };`,
    'export const components = COMPONENTS.map((c) => [c.name, mods[c.name].CONFIG]);',
    'export const config = CONFIG;',
  ].join('\n');
  const out = await build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  // Imported from a directory of its own inside the project, so the bare imports esbuild left
  // external resolve from the project's node_modules; removed once imported.
  const tmp = mkdtempSync(join(root, '.cg-docs-'));
  try {
    const file = join(tmp, 'specs.mjs');
    const text = out.outputFiles[0].text;
    writeFileSync(file, text);
    const mod = await import(pathToFileURL(file).href);
    for (const [name, spec] of mod.components)
      if (!spec?.entries) throw new Error(`component ${name}: no exported CONFIG section`);
    return { components: mod.components, config: mod.config };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const isSection = (f) => Array.isArray(f?.entries);

/** Rows { key, def, doc } of a section, nested sections flattened as `outer.inner`. */
function rows(section, prefix = '') {
  const out = [];
  for (const { key, field } of section.entries) {
    if (isSection(field) && field.entries.length > 0) out.push(...rows(field, `${prefix}${key}.`));
    else out.push({ key: `${prefix}${key}`, def: shownDefault(field), doc: field.meta?.doc ?? '' });
  }
  return out;
}

function shownDefault(field) {
  const m = field.meta ?? {};
  if (m.shownDefault !== undefined) return m.shownDefault;
  if (m.fileDefault) return shownValue(m.fileDefault.value);
  if (isSection(field)) return '{}';
  return field.presence === 'required' ? 'required' : '—';
}

function shownValue(v) {
  if (typeof v === 'string') return v === '\t' ? 'tab' : `\`${v}\``;
  if (Array.isArray(v)) return v.length ? `[${v.map(shownValue).join(', ')}]` : '`[]`';
  return String(v);
}

/** The tables, by marker name: every component's settings, and each config section's keys. */
export function tables(specs) {
  const components = specs.components.flatMap(([name, spec]) =>
    rows(spec).map((r) => ({ ...r, key: `${name}.${r.key}` })),
  );
  const top = [];
  const sections = [];
  for (const { key, field } of specs.config.entries) {
    if (key === 'components') continue;
    if (isSection(field) && field.entries.length > 0) sections.push([key, rows(field, `${key}.`)]);
    else top.push(...rows({ entries: [{ key, field }] }));
  }
  return { components, config: [...top, ...sections.flatMap(([, r]) => r)] };
}

const mdCell = (s) => s.replace(/\|/g, '\\|');

function markdownTable(list, missing) {
  const lines = ['| key | default | what it does |', '| --- | --- | --- |'];
  for (const r of list) {
    if (!r.doc) missing.push(r.key);
    lines.push(`| \`${r.key}\` | ${mdCell(r.def)} | ${mdCell(r.doc)} |`);
  }
  return lines.join('\n');
}

/** Text for roff: backslashes and hyphens escaped, `code` in bold, any non-ASCII as \[uXXXX]. */
function roff(s) {
  return s
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/`([^`]*)`/g, '\\fB$1\\fR')
    .replace(/[^\x00-\x7f]/gu, (c) => `\\[u${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}]`);
}

function manList(list) {
  const lines = [];
  for (const r of list) {
    lines.push('.TP', `\\fB${roff(r.key)}:\\fR ${roff(r.def)}`);
    const doc = roff(r.doc || '');
    lines.push(/^[.']/.test(doc) ? `\\&${doc}` : doc);
  }
  return lines.join('\n');
}

const MARKS = {
  readme: (name) => [`<!-- generated:${name} -->`, `<!-- /generated:${name} -->`],
  man: (name) => [`.\\" generated:${name}`, `.\\" /generated:${name}`],
};

/** `text` with each generated block replaced; throws when a block's markers are missing. */
export function regenerate(kind, text, specs, missing = []) {
  const t = tables(specs);
  let out = text;
  for (const [name, list] of Object.entries(t)) {
    const [open, close] = MARKS[kind](name);
    const a = out.indexOf(open);
    const b = out.indexOf(close);
    if (a < 0 || b < a) throw new Error(`${TARGETS[kind]}: no ${open} … ${close} block`);
    const body = kind === 'readme' ? markdownTable(list, missing) : manList(list);
    out = `${out.slice(0, a + open.length)}\n${body}\n${out.slice(b)}`;
  }
  return out;
}

/** The targets whose text differs from what the specs give (name → { now, want }). */
export async function drift(root = ROOT, specs) {
  const s = specs ?? (await loadSpecs(root));
  const found = {};
  for (const [kind, rel] of Object.entries(TARGETS)) {
    const now = readFileSync(join(root, rel), 'utf8');
    const want = regenerate(kind, now, s);
    if (now !== want) found[rel] = { now, want };
  }
  return found;
}

async function main(argv) {
  const check = argv.includes('--check');
  const specs = await loadSpecs();
  const missing = [];
  regenerate('readme', readFileSync(join(ROOT, TARGETS.readme), 'utf8'), specs, missing);
  if (missing.length) console.error(`docs: settings with no .doc(): ${missing.join(', ')}`);
  const drifted = await drift(ROOT, specs);
  for (const [rel, { want }] of Object.entries(drifted)) {
    if (check) console.error(`docs: ${rel} differs from the field specs (run npm run docs)`);
    else writeFileSync(join(ROOT, rel), want);
  }
  if (!check) console.error(`docs: ${Object.keys(drifted).length} file(s) regenerated`);
  process.exitCode = (check && Object.keys(drifted).length) || missing.length ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(`docs: ${err instanceof Error ? err.message : err}`);
    process.exitCode = 1;
  });
}
