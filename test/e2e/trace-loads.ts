/**
 * Runs bin/cg.js with a tracer preloaded that prints `LOAD <specifier or URL>` on stderr for every
 * module Node resolves: through the ES module loader (the launcher's entry, each lazily imported
 * package) and through require. What a start-up loads is then a plain list to assert on.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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

export interface Traced {
  code: number;
  stdout: string;
  /** Everything resolved, one specifier or URL per line. */
  loaded: string;
}

/** `cg args` with stdin `input`, a private store and config, and the tracer preloaded. */
export function traceLoads(args: string[], input = '', env: Record<string, string> = {}): Traced {
  const dir = tempDir('cg-e2e-trace-');
  const tracer = join(dir, 'trace.mjs');
  writeFileSync(tracer, TRACER);
  const r = spawnSync(process.execPath, ['--import', tracer, BIN, ...args], {
    input,
    env: {
      PATH: process.env.PATH ?? '',
      XDG_CONFIG_HOME: join(dir, 'cfg'),
      CG_STORE_DIR: join(dir, 'store'),
      CG_STATE_DIR: join(dir, 'state'),
      ...env,
    },
  });
  const stderr = r.stderr.toString();
  return {
    code: r.status ?? -1,
    stdout: r.stdout.toString(),
    loaded: stderr
      .split('\n')
      .filter((l) => l.startsWith('LOAD '))
      .join('\n'),
  };
}
