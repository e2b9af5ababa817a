// Outputs nobody tuned for (issue 31): the unseen-shapes set in test/fixtures/unseen (real outputs of
// tools the builtin filters were not written from; MANIFEST.md says what produced each and which
// part it is in, split by a fixed rule before tuning), each run through the library twice — piped
// (no command known, as `cmd | cg`) and run (the command known, as `cg run -- cmd`) — with the
// default preset and a temp store; o200k tokens, markers and hints included. Per part (tune,
// holdout) and mode: tokens saved, failure lines kept (the lines with an error signal of what the
// tool prints: a JSON stream's decoded view), error/warning templates visible. Then the shapes'
// targets: grep (every file with hits named), path lists (directories to depth 3 named), NDJSON
// test runs (every failure line of the plain view kept), logs (templates visible, tokens saved).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isSignal, templateKey, visibility } from './visible.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = join(root, 'test', 'fixtures', 'unseen');

/** The manifest's rows: id, file, part, command. */
function manifest() {
  const rows = [];
  for (const line of readFileSync(join(fixtures, 'MANIFEST.md'), 'utf8').split('\n')) {
    const m = /^\| (\d+) \| (\S+) \| (tune|holdout) \| `(.*)` \| (\S+) \|$/.exec(line);
    if (m) rows.push({ id: Number(m[1]), file: m[2], part: m[3], command: m[4] });
  }
  return rows;
}

/** src/dsl/failure-lines.ts's failureView, bundled for the bench (it is no library export). */
async function failureViewFn(work) {
  const { build } = await import('esbuild');
  const out = join(work, 'failure-view.mjs');
  await build({
    entryPoints: [join(root, 'src', 'dsl', 'failure-lines.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: out,
    logLevel: 'error',
  });
  return (await import(pathToFileURL(out).href)).failureView;
}

const pct = (a, b) => (b > 0 ? `${((a / b) * 100).toFixed(1)}%` : '–');

/**
 * An error/warning line for these measures: visible.mjs's words, with its `…Error`/`…Exception` read
 * case-sensitively (TypeError, not the package liberror-perl that dpkg's log names at every step).
 */
const CAMEL_ONLY = /[a-z](?:Error|Exception)\b/;
function isErrorLine(line) {
  if (!isSignal(line)) return false;
  const words = line.replace(/[A-Za-z0-9](?:error|exception)\b/gi, (m) => (CAMEL_ONLY.test(m) ? m : ' '));
  return isSignal(words);
}

/** Distinct error/warning templates of a text (visible.mjs's template key), and how many the output shows. */
function signalTemplates(text, output) {
  const visible = visibility(output);
  const templates = new Map();
  for (const line of text.split('\n')) {
    if (!isErrorLine(line)) continue;
    const k = templateKey(line);
    templates.set(k, (templates.get(k) ?? false) || visible(line));
  }
  let shown = 0;
  for (const v of templates.values()) if (v) shown++;
  return { total: templates.size, shown };
}

/** A line that is one path (no space, a `/`): a file called errors.py is not a failure line. */
const PATH_ONLY = /^[^\s]*\/[^\s]*$/;

/** The share of the view's signal lines (error, warning, failure) the output shows. */
function failureLines(view, output) {
  const visible = visibility(output);
  let all = 0;
  let kept = 0;
  for (const line of view.split('\n')) {
    if (!isErrorLine(line) || PATH_ONLY.test(line)) continue;
    all++;
    if (visible(line)) kept++;
  }
  return { all, kept };
}

/** Directories of a path list (prefixes other paths sit under), relative depth from their root. */
function directories(paths) {
  const dirs = new Set();
  for (const p of paths) {
    const parts = p.replace(/\/+$/, '').split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  let rootDir = '';
  const sorted = [...dirs].sort((a, b) => a.length - b.length);
  // The root: the longest directory every path sits under.
  for (const d of sorted) if (paths.every((p) => p === d || p.startsWith(`${d}/`))) rootDir = d;
  const depth = (d) => (rootDir === '' ? d.split('/').length : d.slice(rootDir.length).split('/').length - 1);
  return { dirs: [...dirs].filter((d) => d.length > rootDir.length), depth, rootDir };
}

/** Directory paths a path tree (src/text/path-tree.ts) names, rebuilt from its indentation. */
export function treeDirs(output) {
  const named = new Set();
  const stack = [];
  for (const line of output.split('\n')) {
    const indent = /^ */.exec(line)[0].length;
    const body = line.slice(indent);
    const names = [
      ...body.matchAll(
        /(?:^|, )((?:'[^']*'|[^\s,(]+))\/ (?:\S+ )?\((?:\d+|(?:\d+ (?:files?|dirs?)(?:, )?)+|empty)\)/g,
      ),
    ].map((m) => m[1].replace(/^'|'$/g, ''));
    if (names.length === 0) continue;
    const depth = indent / 2;
    if (depth === 0) {
      stack.length = 0;
      stack.push(names[0].replace(/\/$/, ''));
      named.add(stack[0]);
      continue;
    }
    stack.length = depth;
    for (const n of names) {
      const path = `${stack.slice(0, depth).join('/')}/${n}`;
      named.add(path);
      named.add(path.replace(/^\.\//, ''));
    }
    if (names.length === 1) stack[depth] = names[0];
  }
  return named;
}

/** How a path list's lines give their paths (find, du's size column, tar tv's columns, rsync's banner). */
function pathsOf(file, text) {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (file.startsWith('du-')) return lines.map((l) => l.split('\t')[1]).filter(Boolean);
  if (file.startsWith('dpkg-deb'))
    return lines.map((l) => l.split(/\s+/).slice(5).join(' ').replace(/^\.\//, ''));
  if (file.startsWith('rsync')) return lines.filter((l) => !/\s/.test(l) && l.includes('/'));
  return lines.filter((l) => !/\s/.test(l));
}

const PATH_LISTS = /^(?:find-|git-ls-files|npm-ls-parseable|dpkg-L-|dpkg-deb|du-|rsync-)/;
const GREP = /^(?:grep-|git-grep-)/;
const NDJSON_RUNS = /^(?:go-test-json|cargo-test-json|jest-json|eslint-json)/;
const LOGS = /-log\.txt$|jsonlog|pino-service-log/;

/** How many builtin filters' inline test inputs select, without their command, the filter they select with it. */
async function pipedRouting() {
  const { createFilterSource } = await import(join(root, 'dist', 'index.js'));
  const work = mkdtempSync(join(tmpdir(), 'cg-route-'));
  try {
    const source = createFilterSource({ cwd: work, env: { XDG_CONFIG_HOME: join(work, 'cfg') } });
    const tests = JSON.parse(readFileSync(join(root, 'dist', 'builtin-filters.tests.json'), 'utf8'));
    let same = 0;
    let all = 0;
    for (const { tests: list } of Object.values(tests)) {
      for (const t of list) {
        const command = t.command ?? (t.name.startsWith('$ ') ? t.name.slice(2) : undefined);
        const run = (await source.select(command, t.input))?.name;
        const piped = (await source.select(undefined, t.input))?.name;
        all++;
        if (run === piped) same++;
      }
    }
    return `builtin filters' test inputs that select, piped (no command), the filter their command selects: ${same} of ${all} (${pct(same, all)}; 68 of 220 before issue 31)`;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export async function unseenLines() {
  const { compact, createFsStore } = await import(join(root, 'dist', 'index.js'));
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const count = (t) => countTokens(t, { disallowedSpecial: new Set() });
  const work = mkdtempSync(join(tmpdir(), 'cg-unseen-'));
  const store = createFsStore({ dir: join(work, 'store'), ttlDays: 1, maxBytes: 1 << 30, compress: true });
  const failureView = await failureViewFn(work);
  const rows = manifest();
  const sums = {};
  const shapes = { grep: [], paths: [], runs: [], logs: [] };
  try {
    for (const r of rows) {
      const input = readFileSync(join(fixtures, r.file), 'utf8');
      const view = failureView(input);
      const tin = count(input);
      for (const mode of ['piped', 'run']) {
        const extra = mode === 'run' ? { command: r.command } : {};
        const output = (await compact(input, { store, format: 'text', ...extra })).output;
        const tout = count(output);
        // A rewrite with no marker is lossless (format's compact JSON): it keeps every line's content.
        const lossless = !/<<cg:[0-9a-f]{16}>>/.test(output);
        const f = failureLines(view, lossless ? view : output);
        const t = signalTemplates(
          view
            .split('\n')
            .filter((l) => !PATH_ONLY.test(l))
            .join('\n'),
          lossless ? view : output,
        );
        const key = `${r.part}/${mode}`;
        sums[key] ??= { n: 0, in: 0, out: 0, fAll: 0, fKept: 0, tAll: 0, tShown: 0 };
        const s = sums[key];
        s.n++;
        s.in += tin;
        s.out += tout;
        s.fAll += f.all;
        s.fKept += f.kept;
        s.tAll += t.total;
        s.tShown += t.shown;
        const row = { ...r, mode, tin, tout, input, output, view, f, t };
        if (GREP.test(r.file)) shapes.grep.push(row);
        if (PATH_LISTS.test(r.file)) shapes.paths.push(row);
        if (NDJSON_RUNS.test(r.file)) shapes.runs.push(row);
        if (LOGS.test(r.file)) shapes.logs.push(row);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const out = [
    `unseen-shapes set (test/fixtures/unseen, ${rows.length} real outputs; holdout = ids divisible by 3, fixed before tuning)`,
    await pipedRouting(),
  ];
  for (const part of ['tune', 'holdout']) {
    for (const mode of ['piped', 'run']) {
      const s = sums[`${part}/${mode}`];
      if (!s) continue;
      out.push(
        `${part.padEnd(7)} ${mode.padEnd(5)} ${String(s.n).padStart(3)} outputs: ${pct(s.in - s.out, s.in).padStart(6)} of ${s.in} tokens saved, failure lines kept ${pct(s.fKept, s.fAll)} (${s.fKept}/${s.fAll}), error/warning templates visible ${pct(s.tShown, s.tAll)} (${s.tShown}/${s.tAll})`,
      );
    }
    const p = sums[`${part}/piped`];
    const q = sums[`${part}/run`];
    if (p && q) {
      const gap = (a, b) => Math.abs(a - b) * 100;
      const saved = gap((p.in - p.out) / p.in, (q.in - q.out) / q.in);
      const kept = gap(p.fKept / Math.max(1, p.fAll), q.fKept / Math.max(1, q.fAll));
      out.push(
        `${part.padEnd(7)} piped vs run: ${saved.toFixed(1)} points apart on tokens saved, ${kept.toFixed(1)} on failure lines kept (target ≤ 2)`,
      );
    }
  }
  for (const mode of ['piped', 'run']) {
    const g = shapes.grep.filter((x) => x.mode === mode);
    let named = 0;
    let files = 0;
    let tin = 0;
    let tout = 0;
    for (const x of g) {
      const hits = new Set(
        x.input
          .split('\n')
          .filter((l) => /^[^\s:]+:\d+:/.test(l))
          .map((l) => l.slice(0, l.indexOf(':'))),
      );
      files += hits.size;
      named += [...hits].filter((h) => x.output.includes(h)).length;
      tin += x.tin;
      tout += x.tout;
    }
    out.push(
      `grep (${mode}): ${named} of ${files} files with hits named (${pct(named, files)}; target 100 %), ${pct(tin - tout, tin)} of tokens saved (target ≥ 75 %)`,
    );
  }
  for (const mode of ['piped', 'run']) {
    const cells = [];
    let named = 0;
    let all = 0;
    let tin = 0;
    let tout = 0;
    for (const x of shapes.paths.filter((y) => y.mode === mode)) {
      const { dirs, depth } = directories(pathsOf(x.file, x.input));
      const shallow = dirs.filter((d) => depth(d) <= 3);
      const tree = treeDirs(x.output);
      const isNamed = (d) =>
        tree.has(d) ||
        tree.has(d.replace(/^\.\//, '')) ||
        x.output.includes(`${d}/`) ||
        x.output.includes(`${d}\n`);
      const n = shallow.filter(isNamed).length;
      named += n;
      all += shallow.length;
      tin += x.tin;
      tout += x.tout;
      cells.push(
        `${x.file.replace('.txt', '')} ${n}/${shallow.length} (saved ${pct(x.tin - x.tout, x.tin)})`,
      );
    }
    out.push(
      `path lists (${mode}): ${named} of ${all} directories to depth 3 named (${pct(named, all)}; target ≥ 90 %), ${pct(tin - tout, tin)} of tokens saved (target ≥ 75 %)`,
      `  ${cells.join(', ')}`,
    );
  }
  for (const mode of ['piped', 'run']) {
    let kept = 0;
    let all = 0;
    const cells = [];
    for (const x of shapes.runs.filter((y) => y.mode === mode)) {
      kept += x.f.kept;
      all += x.f.all;
      cells.push(
        `${x.file.replace('.txt', '')} ${x.f.kept}/${x.f.all} (saved ${pct(x.tin - x.tout, x.tin)})`,
      );
    }
    out.push(
      `NDJSON test runs and reports (${mode}): ${kept} of ${all} failure lines of the plain view kept (${pct(kept, all)}; target 100 %): ${cells.join(', ')}`,
    );
  }
  for (const part of ['tune', 'holdout']) {
    for (const mode of ['piped', 'run']) {
      let shown = 0;
      let all = 0;
      let tin = 0;
      let tout = 0;
      for (const x of shapes.logs.filter((y) => y.mode === mode && y.part === part)) {
        shown += x.t.shown;
        all += x.t.total;
        tin += x.tin;
        tout += x.tout;
      }
      out.push(
        `logs, ${part} (${mode}): ${pct(shown, all)} of ${all} error/warning templates visible (target ≥ 95 %), ${pct(tin - tout, tin)} of ${tin} tokens saved (target ≥ 75 %)`,
      );
    }
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await unseenLines()) console.log(line);
}
