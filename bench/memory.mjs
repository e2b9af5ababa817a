// Peak RSS of whole `cg` runs over sizes and shapes (issue 13 item 9, issue 27, DESIGN §7: any run ≤
// 2.5× its input + 80 MB): a build log, pretty-printed JSON records, a flat JSON array (one object a
// line), an Anthropic request body, and the shapes of many tiny lines (`yes`: `y\n` over and over;
// `seq`: `seq 1 N`) and of text past U+00FF (`wide`: a test log with a ✓ on every line, UTF-16 as
// a string; past 48 MB it passes through raw), each at 1, 4, 16 and 64 MB, piped through the default
// preset — what a user or an agent's hook runs — each in a fresh store. Then the pipe at and past its cap (PIPE_CAP, 256 MiB): 256 MiB
// of `y\n` compacted, and `yes | head -c 1G | cg` and a 320 MiB regular file on stdin streamed
// through raw, each against its budget and the ceiling past the cap (the cap + 90 MB). Every row
// prints figure / budget (ratio). The generators of the first four are bench/hotpath.mjs's.
//
//   node bench/memory.mjs [shape …]        shapes: log pretty flat body yes seq wide cap (default: all)
//   CG_BENCH_BIN=/other/bin/cg.js          measure another build (A/B runs)
//   CG_BENCH_MEMORY_SIZES="1 4 16"         pick the sizes (MB)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  benchEnv,
  makeFlatArray,
  makeLog,
  makePrettyJson,
  makeRequestBody,
  writeChunks,
} from './hotpath.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const MB = 1024 * 1024;
const CAP = 256 * MB;
/** What a run past the cap may hold: the cap, then a chunk at a time, over node's own ~45 MB. */
const CEILING = CAP + 90 * MB;

/** `y\n` over and over: 2 bytes a line. */
function makeYes(path, bytes) {
  const chunk = 'y\n'.repeat(1 << 19);
  writeChunks(path, bytes, () => chunk);
}

/** `seq 1 N`: short lines, each a different string. */
function makeSeq(path, bytes) {
  writeChunks(path, bytes, (c) => {
    let s = '';
    for (let i = c * 100_000 + 1; i <= (c + 1) * 100_000; i++) s += `${i}\n`;
    return s;
  });
}

/** A test runner's log with a ✓ on every line: text past U+00FF. */
function makeWide(path, bytes) {
  writeChunks(path, bytes, (c) => {
    let s = '';
    for (let j = 0; j < 5000; j++) {
      const i = c * 5000 + j;
      s += `  ✓ suite ${i % 97} › case ${i} returns the expected value (${i % 50} ms)\n`;
    }
    return s;
  });
}

const SHAPES = {
  log: makeLog,
  pretty: makePrettyJson,
  flat: makeFlatArray,
  body: makeRequestBody,
  yes: makeYes,
  seq: makeSeq,
  wide: makeWide,
};

const budgetOf = (size) => 2.5 * size + 80 * MB;
const mb = (n) => (n / MB).toFixed(0);
/** figure / budget (ratio), or how the run ended when it crashed */
const cell = (r, budget) =>
  r.crashed !== undefined
    ? `crashed (exit ${r.crashed})`
    : `${mb(r.rss)}/${mb(budget)} MB (${(r.rss / budget).toFixed(2)})`;

/**
 * One run of cg with `producer |` or `< file` on its stdin and a pipe on its stdout: peak RSS and
 * bytes out, or the exit code of a run that crashed (a build before issue 27 on 256 MiB of `y\n`).
 */
function measureRun(bin, { producer, file }, env) {
  const dir = mkdtempSync(join(tmpdir(), 'cg-memory-pipe-'));
  const rssFile = join(dir, 'rss');
  const codeFile = join(dir, 'code');
  try {
    const node = `'${process.execPath}' --import '${join(here, 'rss-probe.mjs')}' '${bin}'`;
    const cg = file ? `${node} < '${file}'` : node;
    const r = spawnSync(
      'sh',
      ['-c', `${producer ? `${producer} | ` : ''}{ ${cg}; echo $? > '${codeFile}'; } | wc -c`],
      {
        env: { ...env, CG_BENCH_RSS_FILE: rssFile },
        encoding: 'utf8',
      },
    );
    const code = Number(readFileSync(codeFile, 'utf8'));
    const out = Number(r.stdout.trim());
    if (code !== 0 || !existsSync(rssFile)) return { crashed: code, rss: Number.NaN, out };
    return { rss: Number(readFileSync(rssFile, 'utf8')), out };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What became of an input of `size` bytes. */
const fate = (r, size) =>
  r.crashed !== undefined
    ? 'nothing out'
    : r.out === size
      ? 'passed through whole'
      : `${r.out} bytes out (compacted)`;

/** The pipe at its cap and past it: compacted at 256 MiB, streamed through past it. */
function capLines(bin, work, env) {
  const lines = [`  at and past the pipe's cap (${mb(CAP)} MB; ceiling past it ${mb(CEILING)} MB):`];
  const at = measureRun(bin, { producer: `yes | head -c ${CAP}` }, env);
  lines.push(`    yes | head -c 256M | cg   ${cell(at, budgetOf(CAP))}, ${fate(at, CAP)}`);
  const gib = 1024 * MB;
  const past = measureRun(bin, { producer: `yes | head -c ${gib}` }, env);
  lines.push(
    `    yes | head -c 1G | cg     ${cell(past, budgetOf(gib))}, ceiling ${cell(past, CEILING)}, ${fate(past, gib)}`,
  );
  const file = join(work, 'past-cap');
  makeYes(file, 320 * MB);
  const size = statSync(file).size;
  const direct = measureRun(bin, { file }, env);
  const piped = measureRun(bin, { producer: `cat '${file}'` }, env);
  rmSync(file, { force: true });
  lines.push(
    `    cg < 320 MB file          ${cell(direct, budgetOf(size))}, ceiling ${cell(direct, CEILING)}, ${fate(direct, size)}`,
    `    cat 320 MB file | cg      ${cell(piped, budgetOf(size))}, ceiling ${cell(piped, CEILING)}, ${fate(piped, size)}`,
  );
  return lines;
}

/** One line per shape (figure/budget per size), the rows past the cap, and the worst ratio. */
export function memoryLines({
  bin = join(here, '..', 'bin', 'cg.js'),
  shapes = [...Object.keys(SHAPES), 'cap'],
  sizes = [1, 4, 16, 64],
} = {}) {
  const work = mkdtempSync(join(tmpdir(), 'cg-memory-'));
  const env = benchEnv(work);
  const lines = [
    'Peak RSS of `cat input | cg` (default preset), figure/budget against 2.5 × input + 80 MB (raw: passed through):',
  ];
  let worst = 0;
  const fresh = () => {
    rmSync(env.CG_STORE_DIR, { recursive: true, force: true });
    rmSync(env.CG_STATE_DIR, { recursive: true, force: true });
  };
  try {
    for (const shape of shapes) {
      if (shape === 'cap') {
        lines.push(...capLines(bin, work, env));
        fresh();
        continue;
      }
      const make = SHAPES[shape];
      if (!make) throw new Error(`unknown shape ${shape}: ${[...Object.keys(SHAPES), 'cap'].join(', ')}`);
      const row = [];
      for (const size of sizes) {
        const file = join(work, `${shape}-${size}`);
        make(file, size * MB);
        const bytes = statSync(file).size;
        const r = measureRun(bin, { producer: `cat '${file}'` }, env);
        const budget = budgetOf(bytes);
        if (r.crashed === undefined) worst = Math.max(worst, r.rss / budget);
        row.push(`${size} MB ${cell(r, budget)}${r.out === bytes ? ' raw' : ''}`);
        rmSync(file, { force: true });
        fresh();
      }
      lines.push(`  ${shape.padEnd(7)} ${row.join('  ')}`);
    }
    if (worst > 0) lines.push(`  worst: ${worst.toFixed(2)} of the budget`);
    // For bench/run.mjs's summary.
    lines.worst = worst;
    return lines;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const shapes = process.argv.slice(2);
  const sizes = process.env.CG_BENCH_MEMORY_SIZES?.split(/\s+/).filter(Boolean).map(Number);
  for (const line of memoryLines({
    ...(process.env.CG_BENCH_BIN ? { bin: process.env.CG_BENCH_BIN } : {}),
    ...(shapes.length ? { shapes } : {}),
    ...(sizes ? { sizes } : {}),
  }))
    console.log(line);
}
