/**
 * The body of the sandbox worker: runs one model-written `filter(text, query)` in QuickJS and posts
 * one SandboxReply. sandbox.ts starts it as `(${sandboxWorkerMain})(load)` in an eval Worker, so the
 * same code runs from the TS sources under vitest and from the single bundled dist/cli.cjs.
 *
 * SELF-CONTAINED: it is shipped as its source text (Function#toString), which drops its closure. It
 * must reference no module-level binding — no value imports, no helpers outside it, no literal
 * `import()` (vitest rewrites those) — and reaches modules only through `load`. `import type` only.
 *
 * Limits: time by QuickJS's interrupt handler (polled only every ~10k bytecode steps, so sandbox.ts
 * also terminates the worker), counted in this thread's CPU time where Linux reports it (see
 * sandbox-clock.ts: a busy machine must not fail a correct program), else on the wall clock. Memory by a capped WebAssembly.Memory: QuickJS's own accounting is
 * broken in this Emscripten build (8 bytes counted per allocation: quickjs-emscripten #255, #271).
 * Stack by setMaxStackSize, and for deep native recursion by V8's stack (a host RangeError).
 */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import type { RE2JS } from 're2js';
import type { SandboxJob, SandboxMessage, SandboxReply } from './sandbox.js';

export async function sandboxWorkerMain(load: (specifier: string) => Promise<unknown>): Promise<void> {
  const threads = (await load('node:worker_threads')) as typeof import('node:worker_threads');
  const fs = (await load('node:fs')) as typeof import('node:fs');
  const job = threads.workerData as SandboxJob;
  const post = (message: SandboxMessage): void => threads.parentPort?.postMessage(message);
  const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim().slice(0, 300);
  const errText = (e: unknown): string => oneLine(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  const cjs = <T>(m: unknown): T => ((m as { default?: T }).default ?? m) as T; // a CJS package by URL

  // 256 pages (16 MiB) is the build's initial memory, so the smallest cap too. (No WebAssembly types.)
  type Wasm = { Memory: new (d: object) => { grow(pages: number): number } };
  const { Memory } = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
  const memory = new Memory({ initial: 256, maximum: Math.max(256, Math.ceil(job.memoryBytes / 65536)) });
  let oom = false; // the last attempt to grow failed (Emscripten retries with smaller steps)
  const grow = memory.grow.bind(memory);
  memory.grow = (pages: number): number => {
    oom = true;
    const before = grow(pages);
    oom = false;
    return before;
  };
  let qjs: typeof import('quickjs-emscripten');
  let Re2: typeof RE2JS;
  let ctx: QuickJSContext;
  try {
    qjs = cjs(await load(job.quickjsUrl));
    Re2 = cjs<typeof import('re2js')>(await load(job.re2Url)).RE2JS;
    const silent = (): void => {}; // Emscripten's abort() would print on the host's stderr
    const emscriptenModule = { wasmMemory: memory, print: silent, printErr: silent };
    const variant = qjs.newVariant(qjs.RELEASE_SYNC, { wasmMemory: memory, emscriptenModule });
    ctx = (await qjs.newQuickJSWASMModule(variant)).newContext();
  } catch (e) {
    post({ ok: false, reason: `sandbox unavailable: ${errText(e)}` });
    return;
  }
  const rt = ctx.runtime;
  rt.setMemoryLimit(job.memoryBytes); // its accounting is broken, but it refuses one oversized block
  rt.setMaxStackSize(job.stackBytes);
  // ---- the clock: this thread's CPU ms (Linux /proc), else the wall's ----
  const cpuNow = (): number | undefined => {
    try {
      const ns = Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
      return Number.isFinite(ns) ? ns / 1e6 : undefined;
    } catch {
      return undefined;
    }
  };
  const onCpu = cpuNow() !== undefined;
  const clock = (): number => (onCpu ? (cpuNow() ?? Date.now()) : Date.now());
  let deadline = Number.POSITIVE_INFINITY;
  let expired = false; // the deadline has passed (sticky)
  let halted = false; // the run is over: no program code may run again (a getter on a thrown object)
  let lookedAt = 0; // reading /proc costs ~10 µs: look at most every few wall ms, not at every poll
  const overdue = (): boolean => {
    const wall = Date.now();
    if (!expired && wall - lookedAt >= 5) {
      lookedAt = wall;
      if (clock() > deadline) expired = true;
    }
    return expired;
  };
  rt.setInterruptHandler(() => overdue() || halted);

  // The library's C→host call path costs ~12 µs a call (generator-based, for its asyncify builds);
  // a filter may call re_match once per line of 100k. This equivalent synchronous path costs ~2 µs.
  // It uses internals of the pinned quickjs-emscripten 0.32, so it installs only if they are there.
  type HostFn = (...a: QuickJSHandle[]) => QuickJSHandle | undefined;
  type Ffi = Record<string, ((...a: unknown[]) => number) | undefined>;
  type Internals = { cToHostCallbacks?: { callFunction: unknown }; ffi?: Ffi; ctx?: { value: unknown } };
  const { cToHostCallbacks: cb, ffi, ctx: ptr } = ctx as unknown as Internals;
  const getFunction = (ctx as unknown as { getFunction?: (id: number) => HostFn }).getFunction;
  if (cb?.callFunction && getFunction && ffi?.QTS_ArgvGetJSValueConstPointer && ffi.QTS_DupValuePointer) {
    cb.callFunction = (_c: unknown, _this: unknown, argc: number, argv: unknown, id: number): number => {
      const args: QuickJSHandle[] = [];
      for (let i = 0; i < argc; i++) {
        const arg = ffi.QTS_ArgvGetJSValueConstPointer?.(argv, i) as never;
        args.push(new qjs.WeakLifetime(arg, undefined, undefined, rt) as unknown as QuickJSHandle);
      }
      try {
        const out = getFunction.call(ctx, id)(...args);
        if (!out) return 0;
        const value = ffi.QTS_DupValuePointer?.(ptr?.value, out.value) ?? 0;
        out.dispose(); // as the library does: QuickJS now owns the duplicate
        return value;
      } catch (e) {
        const err = e instanceof Error ? ctx.newError(e) : ctx.newError(String(e));
        const thrown = ffi.QTS_Throw?.(ptr?.value, err.value) ?? 0;
        err.dispose();
        return thrown;
      }
    };
  }

  // ---- RE2 helpers, in Python's argument order; each (flags, pattern) is compiled once ----
  const cache = new Map<string, RE2JS | string>();
  const compile = (fn: string, pattern: string, flags: string): RE2JS => {
    let re = cache.get(`${flags}/${pattern}`);
    if (re === undefined) {
      const bit: Record<string, number> = { i: Re2.CASE_INSENSITIVE, m: Re2.MULTILINE, s: Re2.DOTALL };
      const bad = [...flags].find((f) => !(f in bit));
      const bits = [...flags].reduce((all, f) => all | (bit[f] ?? 0), 0);
      try {
        re = bad ? `unknown flag "${bad}" (flags are a string of i, m, s)` : Re2.compile(pattern, bits);
      } catch (e) {
        // re2js calls these "invalid or unsupported Perl syntax" or "invalid escape": say what they are.
        const why = /\(\?<?[=!]/.test(pattern)
          ? 'look-around ((?=, (?!, (?<=, (?<!) is not supported by RE2'
          : /\\[1-9]/.test(pattern)
            ? 'back-references (\\1) are not supported by RE2'
            : (e as Error).message.replace(/^error parsing regexp: /, '');
        re = `invalid pattern ${JSON.stringify(pattern)}: ${why}`;
      }
      cache.set(`${flags}/${pattern}`, re);
    }
    if (typeof re === 'string') throw new Error(`${fn}: ${re}`);
    return re;
  };
  const str = (fn: string, what: string, h: QuickJSHandle | undefined, optional = false): string => {
    if (optional && (!h || ctx.typeof(h) === 'undefined')) return '';
    if (!h || ctx.typeof(h) !== 'string') throw new TypeError(`${fn}: ${what} must be a string`);
    return ctx.getString(h);
  };
  const args = (fn: string, p?: QuickJSHandle, t?: QuickJSHandle, f?: QuickJSHandle) => {
    // Helpers run on the host, where QuickJS cannot interrupt them: they check the clock themselves.
    if (overdue()) throw new Error(`${fn}: interrupted, the time limit has passed`);
    const re = compile(fn, str(fn, 'pattern', p), str(fn, 'flags', f, true));
    return { re, text: str(fn, 'text', t), n: re.groupCount() };
  };
  const strings = (items: readonly (string | readonly string[])[]): QuickJSHandle => {
    const arr = ctx.newArray();
    items.forEach((s, i) => {
      const h = typeof s === 'string' ? ctx.newString(s) : strings(s);
      ctx.setProp(arr, i, h);
      h.dispose();
    });
    return arr;
  };
  const groups = (m: ReturnType<RE2JS['matcher']>, n: number): string[] =>
    Array.from({ length: n }, (_, g) => m.group(g + 1) ?? '');
  const helpers: Record<string, (...a: QuickJSHandle[]) => QuickJSHandle> = {
    re_sub: (p, r, t, f) => {
      const { re, text } = args('re_sub', p, t, f);
      const group = (ref: string): string => {
        const known = /^\d+$/.test(ref) ? Number(ref) <= re.groupCount() : ref in re.namedGroups();
        if (!known) throw new Error(`re_sub: no group ${ref} in the pattern`);
        return /^\d+$/.test(ref) ? `$${ref.padStart(2, '0')}` : `$<${ref}>`;
      };
      // re2js expands $1, $<name>, $&, $$ (ECMAScript); also take ${name} and Python's \1 \g<name> \\.
      const ref = /\\(\\)|\\(\d\d?)|\\g<(\w+)>|\$\{(\w+)\}|\$\$/g;
      const repl = str('re_sub', 'replacement', r).replace(ref, (all, bs, num, g, brace) =>
        bs ? '\\' : all === '$$' ? all : group(num ?? g ?? brace),
      );
      return ctx.newString(re.matcher(text).replaceAll(repl));
    },
    re_findall: (p, t, f) => {
      const { re, text, n } = args('re_findall', p, t, f);
      const m = re.matcher(text);
      const found: (string | string[])[] = [];
      while (m.find()) found.push(n === 0 ? (m.group() ?? '') : n === 1 ? (m.group(1) ?? '') : groups(m, n));
      return strings(found);
    },
    re_split: (p, t, f) => {
      const { re, text, n } = args('re_split', p, t, f);
      const m = re.matcher(text);
      const parts: string[] = [];
      let last = 0;
      for (; m.find(); last = m.end()) parts.push(text.slice(last, m.start()), ...groups(m, n)); // Python keeps groups
      parts.push(text.slice(last));
      return strings(parts);
    },
    re_match: (p, t, f) => {
      const { re, text } = args('re_match', p, t, f);
      return re.test(text) ? ctx.true : ctx.false;
    },
  };
  for (const [name, fn] of Object.entries(helpers))
    ctx.newFunction(name, fn).consume((h) => ctx.setProp(ctx.global, name, h));

  // ---- run the program ----
  const handles: QuickJSHandle[] = [];
  const keep = (h: QuickJSHandle): QuickJSHandle => {
    handles.push(h);
    return h;
  };
  /** Why a run failed, from the value it threw. */
  const failure = (err: QuickJSHandle, compiling = false): string => {
    halted = true;
    const type = ctx.typeof(err);
    const prop = (key: string): string => {
      try {
        const h = keep(ctx.getProp(err, key));
        return ctx.typeof(h) === 'string' ? ctx.getString(h) : '';
      } catch {
        return ''; // a getter or a Proxy trap, interrupted since `halted`
      }
    };
    const isObject = type === 'object' && !ctx.eq(err, ctx.null);
    const name = isObject ? prop('name') : '';
    const message = isObject ? prop('message') : type === 'string' ? ctx.getString(err) : `${ctx.dump(err)}`;
    if (expired || (name === 'InternalError' && message === 'interrupted')) {
      return `program timed out after ${job.timeoutMs} ms`;
    }
    if (oom || message === 'out of memory') return 'program ran out of memory';
    // QuickJS's own check, or V8's met inside a helper (passed back as a RangeError).
    if (message === 'stack overflow' || message.startsWith('Maximum call stack')) {
      return 'program overflowed the stack';
    }
    if (compiling && name === 'SyntaxError') {
      const line = keep(ctx.getProp(err, 'lineNumber'));
      const at = ctx.typeof(line) === 'number' ? ` (line ${ctx.getNumber(line)})` : '';
      return `program has a syntax error: ${oneLine(message)}${at}`;
    }
    return `program threw: ${oneLine(name ? `${name}: ${message}` : message || (isObject ? 'an object' : 'null'))}`;
  };
  const DETERMINISM = `(() => {
    let seed = 0x2545f491;
    Math.random = function random() {
      seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
      return (seed >>> 0) / 4294967296;
    };
    const RealDate = Date;
    function FixedDate(...args) {
      if (!new.target) return new RealDate(0).toString();
      return args.length ? new RealDate(...args) : new RealDate(0);
    }
    FixedDate.prototype = RealDate.prototype;
    FixedDate.now = () => 0;
    FixedDate.parse = RealDate.parse;
    FixedDate.UTC = RealDate.UTC;
    globalThis.Date = FixedDate;
  })();`;
  const call = (): SandboxReply => {
    const run = (code: string, compileOnly = false): QuickJSHandle | SandboxReply => {
      const r = ctx.evalCode(code, 'filter.js', { type: 'global', compileOnly });
      return r.error ? { ok: false, reason: failure(keep(r.error), compileOnly) } : keep(r.value);
    };
    const start = clock();
    deadline = start + job.timeoutMs;
    // The host's backstop counts from here, on the same clock (its thread id names our CPU time).
    let tid: number | undefined;
    try {
      tid = onCpu ? Number(fs.readFileSync('/proc/thread-self/stat', 'utf8').split(' ')[0]) : undefined;
    } catch {
      // then the host's backstop is on the wall
    }
    post({ started: { cpuMs: start, ...(tid !== undefined && tid > 0 ? { tid } : {}) } });
    // Same input, same bytes: chance and the clock are fixed inside the sandbox.
    const fixed = run(DETERMINISM);
    if ('ok' in fixed) return fixed;
    // Compiled first, so a SyntaxError there is the source's, not a JSON.parse's at run time.
    const compiled = run(job.program, true);
    if ('ok' in compiled) return compiled;
    const ran = run(job.program);
    if ('ok' in ran) return ran;
    // A global `const filter = …` is no property of globalThis: ask the script scope.
    const fn = run('typeof filter === "function" ? filter : undefined');
    if ('ok' in fn) return fn;
    if (ctx.typeof(fn) !== 'function')
      return { ok: false, reason: 'program defines no function filter(text, query)' };
    const r = ctx.callFunction(
      fn,
      ctx.undefined,
      ...[job.text, job.query].map((s) => keep(ctx.newString(s))),
    );
    if (r.error) return { ok: false, reason: failure(keep(r.error)) };
    const type = ctx.typeof(keep(r.value));
    if (type === 'string') return { ok: true, text: ctx.getString(r.value) };
    const what = type !== 'object' ? type : ctx.eq(r.value, ctx.null) ? 'null' : 'an object';
    const article = /^(undefined|null|an )/.test(what) ? '' : 'a ';
    return { ok: false, reason: `filter returned ${article}${what}, not a string` };
  };

  let reply: SandboxReply;
  try {
    reply = call();
  } catch (e) {
    // Thrown on the host side of the wasm boundary: V8's own stack limit, a wasm trap, a bug here.
    const overflow = e instanceof RangeError && /call stack/i.test(e.message);
    const reason = overflow ? 'program overflowed the stack' : oom ? 'program ran out of memory' : undefined;
    reply = { ok: false, reason: reason ?? `sandbox unavailable: ${errText(e)}` };
  }
  post(onCpu ? { ...reply, cpuMs: Math.round((cpuNow() ?? 0) - (deadline - job.timeoutMs)) } : reply);
  // After posting, so a dispose that trips over a broken heap cannot cost the answer.
  try {
    for (const h of handles) if (h.alive) h.dispose();
    ctx.dispose(); // and its runtime, which module.newContext() made for it
    if (rt.alive) rt.dispose();
  } catch {
    // A leaked handle, or an interpreter left inconsistent by a trap: the worker is discarded anyway.
  }
}
