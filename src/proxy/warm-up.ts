/**
 * The proxy's warm-up: the one-time costs of a first large body paid while the proxy is idle after
 * start, not inside a client's first turn. A fresh process runs its code cold (V8 interprets a
 * function until it has run often enough to be compiled, and the heap starts small) and loads
 * modules on first use (the tokenizer's table, each filter's regexes, zlib); measured here, a cold
 * proxy's first sight of a 1,000-result session took ~3× the CPU of the same sight once warm, and
 * ~2× after this warm-up.
 *
 * What it runs: small generated sessions (the kinds of output agents read: searches, file reads,
 * test runs, listings, logs, diffs, JSON) through compactBody, a first sight and a next turn each,
 * with the proxy's preset, config and filters — and nothing of the proxy's state. Its store keeps
 * nothing (it only encodes what it is given, as the disk store would), its session records are its
 * own and in memory, its token counter and turn memory are its own, no model is ever asked, and no
 * event reaches the ledger. So what the proxy sends, stores and records is exactly what it would
 * without it.
 *
 * Its garbage is collected at the end, while still idle.
 *
 * When: a step (one small session) at a time, each only once no request has been in flight for a
 * moment; a request that arrives waits at most for the step under way. It stops when the proxy
 * closes, and a step that throws ends the warm-up (it is only ever a speed-up).
 */
import type { FilterSource } from '../component.js';
import type { CgConfig } from '../config.js';
import { collectGarbage } from '../heap/gc.js';
import type { SessionRecord } from '../session/record.js';
import type { RecordBackend } from '../session/records.js';
import { encode } from '../store/codec.js';
import { keyOf } from '../store/keys.js';
import type { PutResult, Store } from '../store/store.js';
import { createTokens } from '../tokens.js';
import { compactBody } from './turn/compact-body.js';
import { TurnMemory } from './turn/memory.js';

/** Sessions run; each is a first sight and a next turn. About 1 s of CPU on this machine in all. */
export const WARM_UP_STEPS = 16;
/** Tool results in each generated session (small: its peak memory stays below a real turn's). */
const RESULTS_PER_STEP = 40;
/** How long the proxy must have been without a request in flight before a step starts. */
const QUIET_MS = 50;

export interface WarmUpOptions {
  config: CgConfig;
  preset: string;
  filters: FilterSource;
  /** Whether the proxy is busy now (a request in flight, or one began within QUIET_MS). */
  busy(): boolean;
  /** True once the proxy is closing: no further step starts. */
  stopped(): boolean;
  steps?: number;
}

/** A store that keeps nothing: every put succeeds, and its bytes are encoded as a disk put would. */
function scratchStore(compress: boolean): Store {
  const keys = new Set<string>();
  return {
    dir: '(warm-up)',
    writable: async () => true,
    async put(original: string, bytes?: Uint8Array): Promise<PutResult> {
      const data = bytes
        ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
        : Buffer.from(original);
      const key = keyOf(data);
      await encode(data, compress);
      const created = !keys.has(key);
      keys.add(key);
      return { ok: true, key, created };
    },
    has: async (key) => keys.has(key),
    get: async () => undefined,
    info: async () => ({ dir: '(warm-up)', entries: keys.size, bytes: 0, ttlDays: 0, maxBytes: 0, compress }),
    prune: async () => ({ removed: 0, freedBytes: 0, remaining: keys.size, remainingBytes: 0 }),
    clear: async () => {
      const n = keys.size;
      keys.clear();
      return n;
    },
  };
}

/** Session records kept in memory for the warm-up's own sessions. */
function scratchRecords(): RecordBackend {
  const saved = new Map<string, SessionRecord>();
  return {
    where: '(warm-up)',
    shared: false,
    load: async (key, label) => saved.get(key) ?? { id: label, outputs: new Map() },
    async save(key, _record, ours) {
      saved.set(key, ours);
      return undefined;
    },
    problem: async () => undefined,
  };
}

/** A small deterministic PRNG (mulberry32): the same steps every start. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'request handler config cache token parser module value error result stream buffer'.split(' ');

type Call = { name: string; input: Record<string, string>; text: string; isError?: boolean };

/** One tool call and what it gave, of a kind agents run often. */
function toolCall(i: number, rand: () => number): Call {
  const n = 3 + Math.floor(rand() * rand() * 80);
  const w = (k: number) => WORDS[(i + k) % WORDS.length]!;
  const num = () => Math.floor(rand() * 100_000);
  const lines = (make: (k: number) => string) =>
    `${Array.from({ length: n }, (_, k) => make(k)).join('\n')}\n`;
  switch (i % 8) {
    case 0:
      return {
        name: 'Bash',
        input: { command: `grep -rn "${w(0)}" src/` },
        text: lines((k) => `src/${w(k)}/${w(k + 1)}.ts:${k * 3 + 1}:  const ${w(k)} = ${num()};`),
      };
    case 1:
      return {
        name: 'Read',
        input: { file_path: `/repo/src/${w(0)}/${w(1)}.ts` },
        text: lines(
          (k) =>
            `${String(k + 1).padStart(6)}→export function ${w(k)}${k}(x: number) { return x * ${num()}; }`,
        ),
      };
    case 2:
      return {
        name: 'Bash',
        input: { command: 'npm test' },
        text: lines((k) =>
          k % 9 === 4
            ? `  ✗ ${w(k)} case ${k}: expected ${num()} got ${num()}`
            : `  ✓ ${w(k)} case ${k} (${num() % 90} ms)`,
        ),
      };
    case 3:
      return {
        name: 'Bash',
        input: { command: `ls -la ${w(0)}` },
        text: lines(
          (k) =>
            `-rw-r--r--  1 dev dev ${num()} Jan ${1 + (k % 28)} 09:${String(k % 60).padStart(2, '0')} ${w(k)}_${k}.ts`,
        ),
      };
    case 4:
      return {
        name: 'Bash',
        input: { command: 'git log --stat' },
        text: lines((k) =>
          k % 4 === 0
            ? `commit ${num().toString(16).padStart(8, '0')}${'0'.repeat(32)}`
            : ` src/${w(k)}.ts | ${num() % 40} ++--`,
        ),
      };
    case 5:
      return {
        name: 'Bash',
        input: { command: 'npm run build' },
        text: lines((k) =>
          k % 7 === 3
            ? `WARN ${w(k)}: deprecated option "${w(k + 2)}" (${k})`
            : `[${String(k).padStart(3, '0')}] compiled src/${w(k)}.ts in ${num() % 500} ms`,
        ),
      };
    case 6:
      return {
        name: 'Bash',
        input: { command: `curl -s https://api.example.test/${w(0)}` },
        text: `${JSON.stringify(
          Array.from({ length: n }, (_, k) => ({
            id: k,
            name: w(k),
            value: num(),
            tags: [w(k + 1), w(k + 2)],
          })),
          null,
          2,
        )}\n`,
      };
    default:
      return {
        name: 'Bash',
        input: { command: `cat missing-${w(0)}.txt` },
        text: `cat: missing-${w(0)}.txt: No such file or directory\n`,
        isError: true,
      };
  }
}

/** An Anthropic Messages body of `results` tool calls and results, as a coding agent sends it. */
function sessionBody(step: number, results: number): Record<string, unknown> {
  const rand = rng(0x5eed + step);
  const messages: unknown[] = [{ role: 'user', content: [{ type: 'text', text: 'Fix the failing build.' }] }];
  for (let i = 0; i < results; i++) {
    const c = toolCall(step * results + i, rand);
    const id = `toolu_warm${step}_${i}`;
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Looking at ${WORDS[i % WORDS.length]}.` },
        { type: 'tool_use', id, name: c.name, input: c.input },
      ],
    });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: id, content: c.text, ...(c.isError ? { is_error: true } : {}) },
      ],
    });
  }
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 8192,
    stream: true,
    system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
    messages,
  };
}

const pause = (ms: number) =>
  new Promise<void>((resolve) => {
    // Never what keeps the process alive.
    setTimeout(resolve, ms).unref();
  });

/** Runs the warm-up's steps while the proxy is idle; resolves when done or stopped (never rejects). */
export async function warmUp(o: WarmUpOptions): Promise<number> {
  const store = scratchStore(o.config.store.compress);
  const records = scratchRecords();
  const tokens = createTokens(o.config.tokenizer);
  const turns = new TurnMemory(2);
  const steps = o.steps ?? WARM_UP_STEPS;
  let done = 0;
  try {
    for (let step = 0; step < steps; step++) {
      do await pause(QUIET_MS);
      while (o.busy() && !o.stopped());
      if (o.stopped()) break;
      const whole = sessionBody(step, RESULTS_PER_STEP);
      const messages = whole.messages as unknown[];
      // A first sight of all but the last pair, then the next turn: both of a proxy's paths.
      for (const body of [{ ...whole, messages: messages.slice(0, -2) }, whole]) {
        const result = await compactBody(Buffer.from(JSON.stringify(body)), {
          preset: o.preset,
          config: o.config,
          format: 'anthropic',
          store,
          turns,
          utf8: true,
          tokens,
          filters: o.filters,
          session: { id: `warm-up-${step}`, dir: '(warm-up)', records, env: {} },
          env: {},
          model: { available: false, reason: 'warm-up' },
        });
        await result.finish?.();
      }
      done++;
    }
  } catch {
    // Only ever a speed-up: a step that fails ends it.
  }
  // Its garbage goes now, while idle: left, it would stay in the idle proxy's RSS.
  if (done > 0 && !o.stopped()) collectGarbage();
  return done;
}
