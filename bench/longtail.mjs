// The long tail (issue 17), measured through the library (same engine as the CLI, default preset, a
// temp store; o200k tokens, markers and hints included):
//   - loghub logs: distinct error/warning templates visible (bench/visible.mjs) and tokens saved,
//     with fold (today's default) beside collapse (the fallback before it);
//   - grep -rn over the corpus sources: files with hits named; find over node_modules: directories
//     named; each with tokens saved;
//   - failure locations (file:line[:col], file(line,col)) of tsc, cargo, go test, pytest, make and
//     gcc outputs — the builtin filters' own inline test inputs — still in the output;
//   - structure a later stage must not template away: `git diff` of this repository's history (every
//     file and hunk header kept) and `cat` of each corpus source over 2,000 tokens (every output an
//     outline, none folded into `[×N]` lines).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { treeDirs } from './unseen.mjs';
import { isSignal, signalTemplates } from './visible.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = join(root, '..', 'shared', 'corpus');

async function engine() {
  const { compact, createFsStore } = await import(join(root, 'dist', 'index.js'));
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const dir = mkdtempSync(join(tmpdir(), 'cg-longtail-'));
  const store = createFsStore({ dir, ttlDays: 1, maxBytes: 1 << 30, compress: true });
  const count = (t) => countTokens(t, { disallowedSpecial: new Set() });
  const run = async (text, extra = {}) => (await compact(text, { store, format: 'text', ...extra })).output;
  return { run, count, done: () => rmSync(dir, { recursive: true, force: true }) };
}

const pct = (a, b) => (b > 0 ? `${((a / b) * 100).toFixed(1)}%` : '–');

async function logs(e) {
  const dir = join(corpus, 'logs', 'loghub');
  if (!existsSync(dir)) return ['loghub: corpus not found, skipped'];
  const total = { fold: { shown: 0, in: 0, out: 0 }, collapse: { shown: 0, in: 0, out: 0 }, templates: 0 };
  const rows = [];
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.log'))
    .sort()) {
    const input = readFileSync(join(dir, f), 'utf8');
    const tin = e.count(input);
    const cells = [f.replace('_2k.log', '').padEnd(12)];
    for (const [name, extra] of [
      ['fold', {}],
      ['collapse', { components: 'format,cmdfilter,smartcrush,collapse' }],
    ]) {
      const out = await e.run(input, extra);
      const t = signalTemplates(input, out);
      const tout = e.count(out);
      total[name].shown += t.shown;
      total[name].in += tin;
      total[name].out += tout;
      if (name === 'fold') total.templates += t.total;
      cells.push(
        `${name} ${String(t.shown).padStart(3)}/${String(t.total).padEnd(3)} saved ${pct(tin - tout, tin).padStart(6)}`,
      );
    }
    rows.push(cells.join('  '));
  }
  const line = (n) =>
    `${n}: ${pct(total[n].shown, total.templates)} of ${total.templates} error/warning templates visible, ${pct(total[n].in - total[n].out, total[n].in)} of tokens saved`;
  return [
    'loghub logs (default preset; target ≥ 95 % templates visible with ≥ 75 % saved; issue 17 measured about 8 % visible before fold)',
    ...rows,
    line('fold'),
    line('collapse'),
  ];
}

/** Runs a real command (from the repository root) and returns its output, or undefined. */
function capture(cmd, args) {
  try {
    return execFileSync(cmd, args, { cwd: root, maxBuffer: 1 << 28, encoding: 'utf8' });
  } catch (err) {
    return typeof err.stdout === 'string' && err.stdout !== '' ? err.stdout : undefined;
  }
}

async function grepFind(e) {
  const out = [];
  const code = join(corpus, 'code');
  const grep = existsSync(code) ? capture('grep', ['-rn', 'return', code]) : undefined;
  if (grep) {
    const files = new Set(
      grep
        .split('\n')
        .filter(Boolean)
        .map((l) => l.slice(0, l.indexOf(':'))),
    );
    const res = await e.run(grep, { command: `grep -rn return ${code}` });
    const named = [...files].filter((f) => res.includes(f)).length;
    const tin = e.count(grep);
    out.push(
      `grep -rn over the corpus sources: ${named} of ${files.size} files with hits named (${pct(named, files.size)}; target 100 %), ${pct(tin - e.count(res), tin)} of ${tin} tokens saved`,
    );
  }
  const find = capture('find', ['node_modules', '-maxdepth', '4']);
  if (find) {
    const lines = find.split('\n').filter(Boolean);
    const dirs = new Set(lines.map((l) => l.slice(0, l.lastIndexOf('/') + 1)).filter(Boolean));
    const res = await e.run(find, { command: 'find node_modules -maxdepth 4' });
    // A directory is named by its full path, or by its place in a path tree (src/text/path-tree.ts).
    const tree = treeDirs(res);
    const named = [...dirs].filter(
      (d) => res.includes(d) || res.includes(d.slice(0, -1)) || tree.has(d.slice(0, -1)),
    ).length;
    const tin = e.count(find);
    out.push(
      `find node_modules -maxdepth 4: ${named} of ${dirs.size} directories named (${pct(named, dirs.size)}; target ≥ 90 %), ${pct(tin - e.count(res), tin)} of ${tin} tokens saved`,
    );
  }
  return out;
}

const LOCATION = /[\w./-]+\.[A-Za-z]\w*(?::\d+(?::\d+)?|\(\d+,\d+\))/g;

async function locations(e) {
  const file = join(root, 'dist', 'builtin-filters.tests.json');
  if (!existsSync(file))
    return ['failure locations: dist/builtin-filters.tests.json missing (run the build)'];
  const extra = JSON.parse(readFileSync(file, 'utf8'));
  const rows = [];
  for (const name of ['tsc', 'cargo-test', 'cargo-build', 'go-test-v', 'go-test', 'pytest', 'make', 'gcc']) {
    let kept = 0;
    let all = 0;
    for (const t of extra[name]?.tests ?? []) {
      const command = t.command ?? (t.name.startsWith('$ ') ? t.name.slice(2) : undefined);
      const res = await e.run(t.input, command ? { command } : {});
      for (const line of t.input.split('\n')) {
        // An error line, or rustc's `--> file:line:col` under one.
        if (!isSignal(line) && !/^\s*--> /.test(line)) continue;
        for (const loc of line.match(LOCATION) ?? []) {
          all++;
          if (res.includes(loc)) kept++;
        }
      }
    }
    rows.push(`${name.padEnd(12)} ${kept}/${all} (${pct(kept, all)})`);
  }
  return [
    'failure locations on error lines kept (builtin filters\u2019 inline test inputs; target 100 %)',
    ...rows,
  ];
}

async function structure(e) {
  const out = [];
  const first = capture('git', ['rev-list', '--max-parents=0', 'HEAD'])?.trim().split('\n').pop();
  const diff = first ? capture('git', ['diff', first, 'HEAD', '--', 'src']) : undefined;
  if (diff) {
    const heads = diff.split('\n').filter((l) => l.startsWith('diff --git ') || l.startsWith('@@ '));
    const res = await e.run(diff, { command: `git diff ${first.slice(0, 7)} HEAD -- src` });
    const kept = new Set(res.split('\n'));
    const named = heads.filter((h) => kept.has(h)).length;
    const tin = e.count(diff);
    out.push(
      `git diff of src/ since the first commit: ${named} of ${heads.length} file and hunk headers kept (${pct(named, heads.length)}), ${pct(tin - e.count(res), tin)} of ${tin} tokens saved`,
    );
  }
  const code = join(corpus, 'code');
  if (existsSync(code)) {
    let files = 0;
    let outlined = 0;
    let folded = 0;
    for (const lang of readdirSync(code)) {
      for (const name of readdirSync(join(code, lang))) {
        const text = readFileSync(join(code, lang, name), 'utf8');
        if (e.count(text) < 2000) continue;
        files++;
        const res = await e.run(text, { command: `cat ${lang}/${name}` });
        if (/^\[×\d+\] /m.test(res)) folded++;
        else if (res !== text) outlined++;
      }
    }
    out.push(
      `cat of the ${files} corpus sources over 2,000 tokens: ${outlined} outlined, ${folded} folded into templates (target 0)`,
    );
  }
  return out;
}

export async function longtailLines() {
  const e = await engine();
  try {
    return [
      ...(await logs(e)),
      '',
      ...(await grepFind(e)),
      '',
      ...(await locations(e)),
      '',
      ...(await structure(e)),
    ];
  } finally {
    e.done();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await longtailLines()) console.log(line);
}
