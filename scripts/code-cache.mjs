// The CLI bundle's last build steps, for bin/cg.js's code cache.
//
// finishCliBundle: a script compiled by node:vm cannot run `import()` on Node 20 (no callback is
// allowed without --experimental-vm-modules), so each `import(…)` expression in the bundle becomes a
// call of `__cgImport(…)`, which the launcher passes in. es-module-lexer finds them as a parser
// would (not in strings, templates or comments: the sandbox worker's source text keeps its own).
// The bundle's first line then names its hash, which the cache's header must repeat, and says
// when the bundle is not ASCII (the launcher then reads it as UTF-8); the rest is one function
// expression, which the launcher compiles as it is (no copy of the source to wrap it).
//
// trainCodeCache: runs the built CLI on the commands that start most often (the pipe, --version,
// expand, run, the hook, a compaction that stashes), each run compiling with the cache the previous
// one left and writing it back with the functions it compiled, so the shipped cache covers them all.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init, parse } from 'es-module-lexer';

/**
 * How bin/cg.js runs the bundle: one function expression, called with what a CommonJS module gets
 * and the launcher's `import()` (__cgImport).
 */
const WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname, __cgImport) {'use strict';";

/**
 * Rewrites the bundle's `import()` calls, wraps it in the launcher's function expression and stamps
 * its hash on the first line.
 */
export async function finishCliBundle(file) {
  await init;
  let source = readFileSync(file, 'utf8');
  const [imports] = parse(source);
  // From the end, so earlier offsets stay valid.
  const dynamic = imports.filter((i) => i.d > -1).sort((a, b) => b.ss - a.ss);
  for (const { ss } of dynamic) {
    if (source.slice(ss, ss + 6) !== 'import') throw new Error(`no import() at offset ${ss} of ${file}`);
    source = `${source.slice(0, ss)}__cgImport${source.slice(ss + 6)}`;
  }
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  // An ASCII bundle is read as latin1, a copy; UTF-8 would be decoded and held as a two-byte string.
  const wide = /[^\x00-\x7f]/.exec(source);
  if (wide) {
    const around = source.slice(Math.max(0, wide.index - 40), wide.index + 40);
    console.warn(`warning: ${file} is not ASCII (${JSON.stringify(around)}): every start-up decodes it as`);
    console.warn('UTF-8 (about 0.6 ms); write that character as \\uXXXX in its regex or string.');
  }
  // The launcher's wrapper is written here, not added at each start: concatenated there, the 0.5 MB
  // source was copied once more on every start-up, and the copy cost a scavenge of its own.
  writeFileSync(file, `/*cg-bundle:${hash}${wide ? ':utf8' : ''}*/${WRAPPER_HEAD}\n${source}\n})\n`);
}

/** A Claude Code PostToolUse call of the Bash tool that printed `stdout`. */
function postToolUse(command, stdout) {
  return {
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_response: { stdout, stderr: '', interrupted: false, isImage: false },
  };
}

/** A long `git status`: its filter matches, so a hook call on it loads and runs re2js. */
function gitStatus() {
  let out =
    'On branch main\nChanges not staged for commit:\n  (use "git add <file>..." to update what will be committed)\n\n';
  for (let i = 0; i < 80; i++) out += `\tmodified:   src/module-${i}/index.ts\n`;
  return `${out}\nno changes added to commit (use "git add" and/or "git commit -a")\n`;
}

/**
 * A service log of 200 lines that differ only in their values: no filter names `cat`, so a hook
 * call on it folds the lines by template (the path most log reads take, trained apart from seq's).
 */
function serviceLog() {
  const lines = [];
  for (let i = 0; i < 200; i++)
    lines.push(
      `2026-01-02T03:04:${String(i % 60).padStart(2, '0')}Z INFO [pool-${i % 4}] served id=${i * 31} in ${i % 9} ms`,
    );
  return lines.join('\n');
}

/** The training runs: [argv, stdin]; `KEY` is replaced by the key the stashing run printed. */
function trainingRuns() {
  let lines = '';
  for (let i = 1; i <= 20_000; i++) lines += `${i}\n`;
  return [
    [[], 'hi\n'],
    [[], lines],
    [['expand', 'KEY'], ''],
    [['--version'], ''],
    [['run', '--', 'true'], ''],
    [['hook', 'claude'], JSON.stringify(postToolUse('seq 3000', lines.slice(0, lines.indexOf('3001\n'))))],
    // A filter's pattern may match only here (re2js loads, and its cache, dist/re2js.cache, is made).
    [['hook', 'claude'], JSON.stringify(postToolUse('git status', gitStatus()))],
    [['hook', 'claude'], JSON.stringify(postToolUse('cat service.log', serviceLog()))],
    [['--help'], ''],
  ];
}

/** The commands with a code cache of their own, and which one a command line reads (bin/cg.js). */
export const { CACHE_KINDS, cacheKind } = createRequire(import.meta.url)('../bin/cache-kind.js');

/**
 * Writes `cacheFile` by running `bin` on each training run in a private home, then each command's
 * own cache (`cacheFile` with `.cache` → `.<kind>.cache`) on its runs alone, each chain from no
 * cache at all; throws on a failure.
 */
export function trainCodeCache(bin, cacheFile) {
  const work = mkdtempSync(join(tmpdir(), 'cg-code-cache-'));
  const kindFile = (kind) => cacheFile.replace(/\.cache$/, `.${kind}.cache`);
  rmSync(cacheFile, { force: true });
  for (const kind of CACHE_KINDS) rmSync(kindFile(kind), { force: true });
  try {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: work,
      XDG_CONFIG_HOME: join(work, 'config'),
      XDG_CACHE_HOME: join(work, 'cache'),
      XDG_STATE_HOME: join(work, 'state'),
    };
    let key;
    const train = (argv, input, out) => {
      const args = argv.map((a) => (a === 'KEY' ? key : a));
      const r = spawnSync(process.execPath, [bin, ...args], {
        input,
        env: { ...env, CG_BUILD_CODE_CACHE: out },
        cwd: work,
        encoding: 'utf8',
      });
      if (r.status !== 0 || r.stderr.includes('code cache rejected')) {
        throw new Error(`code cache training: cg ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      }
      key ??= /<<cg:([0-9a-f]{16})>>/.exec(r.stdout)?.[1];
    };
    for (const [argv, input] of trainingRuns()) train(argv, input, cacheFile);
    if (!key) throw new Error('code cache training: the stashing run printed no marker');
    for (const [argv, input] of trainingRuns()) {
      const kind = cacheKind(argv);
      if (kind) train(argv, input, kindFile(kind));
    }
    for (const kind of CACHE_KINDS) readFileSync(kindFile(kind)); // each kind was trained
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
