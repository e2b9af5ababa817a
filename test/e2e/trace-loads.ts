/**
 * Runs bin/cg.js with a tracer preloaded that prints `LOAD <specifier or URL>` on stderr for every
 * module Node resolves: through the ES module loader (the launcher's entry, each lazily imported
 * package) and through require. Or, with a lighter preload, which of Node's own modules the process
 * loaded (`net` once a stream on a pipe was built). What a start-up loads is then a plain list to
 * assert on.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers.js';
import { BIN } from './run-cg.js';

const TRACER = `import { createRequire, register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent('export async function resolve(s, c, n) { const r = await n(s, c); process.stderr.write("LOAD " + r.url + "\\\\n"); return r; }'));
const Module = createRequire(import.meta.url)('node:module');
const load = Module._load;
Module._load = function (request, ...rest) {
  process.stderr.write('LOAD ' + request + '\\n');
  return load.call(this, request, ...rest);
};
`;

/**
 * Preloaded with --require, which (unlike register()'s hooks thread) loads nothing of its own; the
 * list is written with write(2), since building process.stderr would add to it.
 */
const BUILTINS = `process.on('exit', () => {
  const names = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
  const fs = require('node:fs');
  const text = names.map((n) => 'BUILTIN ' + n + '\\n').join('');
  if (process.env.CG_TEST_BUILTINS_TO) fs.writeFileSync(process.env.CG_TEST_BUILTINS_TO, text);
  else fs.writeSync(2, text);
});
`;

export interface Traced {
  code: number;
  stdout: string;
  /** Everything resolved, one specifier or URL per line. */
  loaded: string;
  /** Node's own modules loaded (builtinsOnly). */
  builtins: string[];
}

/**
 * `cg args` with stdin `input`, a private store and config, and the tracer preloaded (or, with
 * `builtinsOnly`, only the list of Node's own modules, which the tracer's hooks would disturb).
 */
export function traceLoads(
  args: string[],
  input = '',
  env: Record<string, string> = {},
  builtinsOnly = false,
  /** stderr goes to /dev/null, as scripts send it (builtinsOnly: the list is read from a file). */
  stderrToNull = false,
): Traced {
  const dir = tempDir('cg-e2e-trace-');
  const tracer = join(dir, builtinsOnly ? 'builtins.cjs' : 'trace.mjs');
  writeFileSync(tracer, builtinsOnly ? BUILTINS : TRACER);
  const listed = join(dir, 'builtins.txt');
  const r = spawnSync(process.execPath, [builtinsOnly ? '--require' : '--import', tracer, BIN, ...args], {
    input,
    ...(stderrToNull ? { stdio: ['pipe', 'pipe', 'ignore'] } : {}),
    env: {
      ...(stderrToNull ? { CG_TEST_BUILTINS_TO: listed } : {}),
      PATH: process.env.PATH ?? '',
      XDG_CONFIG_HOME: join(dir, 'cfg'),
      CG_STORE_DIR: join(dir, 'store'),
      CG_STATE_DIR: join(dir, 'state'),
      ...env,
    },
  });
  const stderr = stderrToNull
    ? existsSync(listed)
      ? readFileSync(listed, 'utf8')
      : ''
    : r.stderr.toString();
  return {
    code: r.status ?? -1,
    stdout: r.stdout.toString(),
    loaded: stderr
      .split('\n')
      .filter((l) => l.startsWith('LOAD '))
      .join('\n'),
    builtins: stderr
      .split('\n')
      .filter((l) => l.startsWith('BUILTIN '))
      .map((l) => l.slice(8)),
  };
}

/** Preloaded: the threads the process has as it exits, written with write(2). */
const THREADS = `process.on('exit', () => {
  require('node:fs').writeSync(2, 'THREADS ' + require('node:fs').readdirSync('/proc/self/task').length + '\\n');
});
`;

/** Threads of `node ARGS…` (stdin `input`) as it exits; undefined without Linux's /proc. */
export function threadsAtExit(
  args: string[],
  input = '',
  env: Record<string, string> = {},
): number | undefined {
  if (!existsSync('/proc/self/task')) return undefined;
  const dir = tempDir('cg-e2e-threads-');
  const preload = join(dir, 'threads.cjs');
  writeFileSync(preload, THREADS);
  const r = spawnSync(process.execPath, ['--require', preload, ...args], {
    input,
    env: {
      PATH: process.env.PATH ?? '',
      XDG_CONFIG_HOME: join(dir, 'cfg'),
      CG_STORE_DIR: join(dir, 'store'),
      CG_STATE_DIR: join(dir, 'state'),
      ...env,
    },
  });
  const n = /THREADS (\d+)/.exec(r.stderr.toString())?.[1];
  return n === undefined ? undefined : Number(n);
}
