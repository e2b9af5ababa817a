/**
 * Runs a model-written `function filter(text, query) { … }` on one tool output, isolated twice over:
 * QuickJS (no imports, no I/O, only the re_* RE2 helpers) inside a worker thread with its own heap
 * limits. Whatever the program does — loop, allocate, recurse, throw — runFilterProgram() resolves
 * with ok:false and a one-line reason, never throws, and leaves this process as it found it.
 *
 * The worker is an eval Worker built from sandboxWorkerMain's source text, not a worker file: the
 * CLI ships as one bundled dist/cli.cjs and tests run the TS sources, and no single worker-file path
 * would exist in both. Each run gets a fresh worker (~0.2 s with QuickJS), so none can poison the next.
 * Importing this module is cheap: QuickJS and re2js are loaded only inside the worker.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { threadCpuMs, watchCpuBudget } from './sandbox-clock.js';
import { sandboxWorkerMain } from './sandbox-worker.js';

export interface SandboxLimits {
  /**
   * Program time in ms, enforced by QuickJS; the worker is killed 1 s after it. Counted in the worker
   * thread's CPU time where Linux reports it (sandbox-clock.ts), else on the wall. Default 2000.
   */
  timeoutMs: number;
  /** Cap on the interpreter's memory (floor 16 MiB). Default max(64 MiB, 16 bytes per input char). */
  memoryBytes?: number;
  /** QuickJS stack limit. Default 256 KiB. */
  stackBytes: number;
}

/** `ms` is wall time from the call; `cpuMs` the program's CPU time, where the platform reports it. */
export type SandboxResult =
  | { ok: true; text: string; ms: number; cpuMs?: number }
  | { ok: false; reason: string; ms: number; cpuMs?: number };

/** The worker's workerData; the URLs are of the installed packages, resolved here. */
export interface SandboxJob {
  program: string;
  text: string;
  query: string;
  timeoutMs: number;
  memoryBytes: number;
  stackBytes: number;
  quickjsUrl: string;
  re2Url: string;
}

/** What the worker posts back, exactly once. */
export type SandboxReply = ({ ok: true; text: string } | { ok: false; reason: string }) & { cpuMs?: number };
/** Posted first, as the program starts: the clock reading its budget counts from, and whose clock. */
export interface SandboxStarted {
  started: { cpuMs: number; tid?: number };
}
export type SandboxMessage = SandboxReply | SandboxStarted;

const MiB = 1024 * 1024;
/** Grace after the program's deadline before the worker is terminated from here. */
const BACKSTOP_MS = 1000;
/**
 * Loading QuickJS in the worker runs none of the program, so it is not on the program's budget; this
 * only ends a worker that never starts (a wall-clock bound far beyond any load a machine can carry).
 */
const STARTUP_MS = 60_000;

// The `load` argument is a string so no transform (vitest's module runner, esbuild) rewrites the
// `import()` in it: the worker's own loader must run it. Do not bundle with keepNames, nor lower
// below ES2022, nor instrument coverage with istanbul: each would put references to module-level
// helpers into sandboxWorkerMain's source text, which the worker cannot resolve.
let workerSource: string | undefined;
let packageUrls: { quickjsUrl: string; re2Url: string } | undefined;

function prepare(): { source: string; urls: { quickjsUrl: string; re2Url: string } } {
  workerSource ??= `(${sandboxWorkerMain.toString()})((specifier) => import(specifier));`;
  if (!packageUrls) {
    // Resolved next to this module (dist/ once bundled), so the worker loads the installed copies.
    const require = createRequire(import.meta.url);
    packageUrls = {
      quickjsUrl: pathToFileURL(require.resolve('quickjs-emscripten')).href,
      re2Url: pathToFileURL(require.resolve('re2js')).href,
    };
  }
  return { source: workerSource, urls: packageUrls };
}

function oneLine(e: unknown): string {
  const s = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').trim();
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

export async function runFilterProgram(
  program: string,
  text: string,
  query: string,
  limits: Partial<SandboxLimits> = {},
): Promise<SandboxResult> {
  const started = performance.now();
  const ms = (): number => Math.round(performance.now() - started);
  const timeoutMs = limits.timeoutMs ?? 2000;
  let worker: Worker;
  try {
    // Loaded here, not at the top: a bundle hoists static imports, and every cg start would pay for it.
    const { Worker } = await import('node:worker_threads');
    const { source, urls } = prepare();
    const job: SandboxJob = {
      program,
      text,
      query,
      timeoutMs,
      memoryBytes: limits.memoryBytes ?? Math.max(64 * MiB, 8 * text.length * 2),
      stackBytes: limits.stackBytes ?? 256 * 1024,
      ...urls,
    };
    worker = new Worker(source, {
      eval: true,
      workerData: job,
      // A runaway host-side allocation (a helper's result, a huge reply) kills the worker, not us.
      resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 4 },
      execArgv: [], // not the parent's loaders or inspector flags
      env: {}, // nothing of ours (API keys included) for a program to find, even through a hole
      stdout: true, // discarded below: the sandbox has nothing to say on our streams
      stderr: true,
    });
  } catch (e) {
    return { ok: false, reason: `sandbox unavailable: ${oneLine(e)}`, ms: ms() };
  }
  worker.stdout.resume();
  worker.stderr.resume();

  return new Promise<SandboxResult>((resolve) => {
    let settled = false;
    const timedOut = (cpuMs?: number): SandboxReply => ({
      ok: false,
      reason: `program timed out after ${timeoutMs} ms`,
      ...(cpuMs !== undefined ? { cpuMs: Math.round(cpuMs) } : {}),
    });
    const finish = (outcome: SandboxReply): void => {
      if (settled) return;
      settled = true;
      stopBackstop();
      // Listeners stay: a late 'error' with none attached would be thrown in this process.
      worker.terminate().catch(() => {});
      resolve({ ...outcome, ms: ms() });
    };
    const startup = setTimeout(
      () =>
        finish({ ok: false, reason: `sandbox unavailable: the worker did not start in ${STARTUP_MS} ms` }),
      STARTUP_MS,
    );
    let stopBackstop = (): void => clearTimeout(startup);
    // QuickJS polls its deadline only every ~10k bytecode steps; a loop of slow native calls
    // (a huge 'x'.repeat, a catastrophic regex per step) can overrun it. This cannot: it ends the
    // worker once the program's clock is BACKSTOP_MS past the deadline.
    const armBackstop = ({ cpuMs, tid }: SandboxStarted['started']): void => {
      clearTimeout(startup);
      const limit = timeoutMs + BACKSTOP_MS;
      if (tid !== undefined && threadCpuMs(tid) !== undefined) {
        stopBackstop = watchCpuBudget(
          () => threadCpuMs(tid),
          cpuMs,
          limit,
          (spent) => finish(timedOut(spent)),
        );
      } else {
        const wall = setTimeout(() => finish(timedOut()), limit);
        stopBackstop = () => clearTimeout(wall);
      }
    };
    worker.on('message', (m: SandboxMessage) => {
      if (m && 'started' in m && typeof m.started?.cpuMs === 'number') return armBackstop(m.started);
      const r = m as SandboxReply;
      const valid = r?.ok === true ? typeof r.text === 'string' : typeof r?.reason === 'string';
      finish(valid ? r : { ok: false, reason: 'sandbox unavailable: malformed reply from the worker' });
    });
    worker.on('error', (e: Error & { code?: string }) =>
      finish({
        ok: false,
        reason:
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? 'program ran out of memory'
            : `sandbox unavailable: ${oneLine(e)}`,
      }),
    );
    worker.on('exit', (code) =>
      finish({
        ok: false,
        reason: `sandbox unavailable: the worker exited (code ${code}) without an answer`,
      }),
    );
  });
}
