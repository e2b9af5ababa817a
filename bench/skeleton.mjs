// skeleton vs `repomix --compress` (also tree-sitter based) on the same source files, side by side:
// tokens kept (o200k) and wall-clock milliseconds per file, each tool started once per file the way
// a user runs it (cg reads the file on stdin; repomix packs a directory holding only that file).
// repomix is not a dependency of cg: it is installed on first use into a cache directory
// ($CG_BENCH_CACHE, else /tmp/cg-bench-cache) and its column is skipped, with a note, when that fails.
// Runs on its own (`node bench/skeleton.mjs`) or from bench/run.mjs.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOMIX_VERSION = '1.18.1';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = join(root, '..', 'shared', 'corpus', 'code');

function ensureRepomix(cache) {
  const bin = join(cache, 'node_modules', 'repomix', 'bin', 'repomix.cjs');
  if (existsSync(bin)) return { bin };
  mkdirSync(cache, { recursive: true });
  const r = spawnSync(
    'npm',
    ['install', '--prefix', cache, '--no-save', '--no-audit', '--no-fund', `repomix@${REPOMIX_VERSION}`],
    { encoding: 'utf8', timeout: 300_000 },
  );
  if (r.status === 0 && existsSync(bin)) return { bin };
  const why = (r.stderr || r.error?.message || `npm exited ${r.status}`).trim().split('\n').pop();
  return { note: `repomix column skipped: could not install repomix@${REPOMIX_VERSION} (${why})` };
}

/** The packed text of one file: what follows repomix's `File: NAME` header. */
function repomixContent(out, name) {
  const header = `File: ${name}\n================\n`;
  const at = out.indexOf(header);
  return at === -1 ? out : out.slice(at + header.length).replace(/\n+$/, '\n');
}

export async function skeletonBench({ env = process.env, work } = {}) {
  if (!existsSync(corpus)) return { lines: [`skeleton vs repomix: no corpus at ${corpus}, skipped`] };
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const count = (t) => countTokens(t, { disallowedSpecial: new Set() });
  const own = !work;
  work ??= mkdtempSync(join(tmpdir(), 'cg-bench-sk-'));
  const cgEnv = {
    ...env,
    CG_STORE_DIR: join(work, 'sk-store'),
    CG_STATE_DIR: join(work, 'sk-state'),
    XDG_CONFIG_HOME: join(work, 'sk-cfg'),
  };
  delete cgEnv.CG_DISABLE;
  const repomix = ensureRepomix(env.CG_BENCH_CACHE ?? join(tmpdir(), 'cg-bench-cache'));
  const bin = join(root, 'bin', 'cg.js');

  const files = readdirSync(corpus)
    .sort()
    .flatMap((dir) =>
      readdirSync(join(corpus, dir))
        .sort()
        .map((name) => ({ dir, name })),
    );
  // One untimed run each first: file cache, and repomix's own first-run work.
  const warm = files[0];
  spawnSync(process.execPath, [bin, '--components', 'skeleton', '--lang', 'go'], {
    input: 'package p\n',
    env: cgEnv,
  });
  const rows = [];
  for (const { dir, name } of files) {
    const path = join(corpus, dir, name);
    const text = readFileSync(path, 'utf8');
    const ext = name.slice(name.lastIndexOf('.') + 1);
    const t0 = performance.now();
    const c = spawnSync(process.execPath, [bin, '--components', 'skeleton', '--lang', ext], {
      input: text,
      env: cgEnv,
      maxBuffer: 1 << 28,
    });
    const cgMs = performance.now() - t0;
    if (c.status !== 0) throw new Error(`cg failed on ${name}: ${c.stderr}`);
    const row = {
      name,
      lines: text.split('\n').length,
      tokens: count(text),
      cgTokens: count(c.stdout.toString('utf8')),
      cgMs,
    };
    if (repomix.bin) {
      const dirFor = join(work, `rm-${name}`);
      mkdirSync(dirFor, { recursive: true });
      copyFileSync(path, join(dirFor, name));
      const args = [
        repomix.bin,
        '--stdin',
        '--compress',
        '--style',
        'plain',
        '--no-file-summary',
        '--no-directory-structure',
        '--no-security-check',
        '--no-git-sort-by-changes',
        '--stdout',
      ];
      if (name === warm.name) spawnSync(process.execPath, args, { input: `${name}\n`, cwd: dirFor, env });
      const t1 = performance.now();
      const r = spawnSync(process.execPath, args, {
        input: `${name}\n`,
        cwd: dirFor,
        env,
        maxBuffer: 1 << 28,
      });
      row.rmMs = performance.now() - t1;
      if (r.status === 0) row.rmTokens = count(repomixContent(r.stdout.toString('utf8'), name));
      else row.rmError = r.stderr.toString('utf8').trim().split('\n').pop();
    }
    rows.push(row);
  }
  if (own) rmSync(work, { recursive: true, force: true });
  return { lines: table(rows, repomix.note) };
}

function pct(kept, total) {
  return `${((100 * kept) / total).toFixed(0)}%`;
}

function table(rows, note) {
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)];
  };
  const head = ['file', 'lines', 'tokens', 'cg skeleton', 'cg ms', 'repomix --compress', 'repomix ms'];
  const body = rows.map((r) => [
    r.name,
    String(r.lines),
    String(r.tokens),
    `${r.cgTokens} (${pct(r.cgTokens, r.tokens)})`,
    r.cgMs.toFixed(0),
    r.rmTokens !== undefined ? `${r.rmTokens} (${pct(r.rmTokens, r.tokens)})` : r.rmError ? 'failed' : '—',
    r.rmMs !== undefined ? r.rmMs.toFixed(0) : '—',
  ]);
  const sum = (k) => rows.reduce((a, r) => a + (r[k] ?? 0), 0);
  const total = sum('tokens');
  const withRm = rows.filter((r) => r.rmTokens !== undefined);
  body.push([
    `all ${rows.length} files`,
    String(sum('lines')),
    String(total),
    `${sum('cgTokens')} (${pct(sum('cgTokens'), total)})`,
    `median ${median(rows.map((r) => r.cgMs)).toFixed(0)}`,
    withRm.length
      ? `${sum('rmTokens')} (${pct(
          sum('rmTokens'),
          withRm.reduce((a, r) => a + r.tokens, 0),
        )})`
      : '—',
    withRm.length ? `median ${median(withRm.map((r) => r.rmMs)).toFixed(0)}` : '—',
  ]);
  const widths = head.map((_, i) => Math.max(head[i].length, ...body.map((r) => r[i].length)));
  const fmt = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  │  ');
  const lines = [
    'skeleton vs repomix --compress (tokens kept of the file, o200k; wall-clock ms per file, one process each)',
    fmt(head),
    ...body.map(fmt),
  ];
  if (withRm.length) {
    const atMost = withRm.filter((r) => r.cgTokens <= r.rmTokens).length;
    const slow = rows.filter((r) => r.cgMs > 300).length;
    lines.push(
      `cg keeps at most repomix's tokens on ${atMost} of ${withRm.length} files; cg over 300 ms on ${slow} of ${rows.length}`,
    );
  }
  if (note) lines.push(note);
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { lines } = await skeletonBench();
  for (const l of lines) console.log(l);
}
