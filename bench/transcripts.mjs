// Transcript figures: replays each Claude Code session of the corpus turn by turn, as an agent
// would send it (the request of turn k = the messages up to the k-th user message), and reports
// what the receiving model would read: tool-output tokens with and without cg, how many turns keep
// every earlier message byte-identical (cache_control aside) so the provider's prompt cache holds,
// and, per component on its own, the tool tokens it saves on each whole corpus body.
//
// The replay harness is exported (typed in transcripts.d.mts) so the golden tests run the very same
// loop against the sources; `npm run bench` runs it against dist/.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CORPUS_TRANSCRIPTS = join(root, '..', 'shared', 'corpus', 'transcripts');

/** Indices of the messages that end a request: every user message. */
export function turnEnds(body) {
  const ends = [];
  body.messages.forEach((m, i) => {
    if (m.role === 'user') ends.push(i);
  });
  return ends;
}

/** The request an agent sends at the turn ending with message `end`. */
export function requestAt(body, end) {
  return JSON.stringify({ ...body, messages: body.messages.slice(0, end + 1) });
}

/** Tool-output texts of an Anthropic or OpenAI body, in order, with their ids (as cg's readers name them). */
export function toolTexts(body) {
  const out = [];
  const add = (id, content) => {
    const parts =
      typeof content === 'string'
        ? [content]
        : (content ?? []).filter((p) => p.type === 'text').map((p) => p.text);
    for (const [k, text] of parts.entries()) out.push({ id: k === 0 ? id : `${id}#${k}`, text });
  };
  const msgs = Array.isArray(body) ? body : (body.messages ?? []);
  for (const m of msgs) {
    if (m.role === 'tool') add(m.tool_call_id, m.content);
    else if (Array.isArray(m.content))
      for (const b of m.content) if (b.type === 'tool_result') add(b.tool_use_id, b.content);
  }
  return out;
}

/** A message as JSON with every cache_control removed: breakpoints move each turn by design. */
function withoutBreakpoints(message) {
  return JSON.stringify(message, (k, v) => (k === 'cache_control' ? undefined : v));
}

/**
 * Replays one session. `run(request)` compacts one request body (same session record and store for
 * every turn) and returns cg's output; `count(text)` counts tokens. `onTurn(k, request, output)` sees
 * every turn. Returns tool tokens summed over all requests (and for the last one), the turn pairs
 * compared and those whose earlier messages all stayed identical.
 */
export async function replaySession(body, { run, count, onTurn }) {
  const ends = turnEnds(body);
  let toolIn = 0;
  let toolOut = 0;
  let lastIn = 0;
  let lastOut = 0;
  let previous;
  let pairs = 0;
  let stable = 0;
  const unstable = [];
  for (const [k, end] of ends.entries()) {
    const request = requestAt(body, end);
    const output = await run(request);
    await onTurn?.(k, request, output);
    const parsedIn = JSON.parse(request);
    const parsedOut = JSON.parse(output);
    lastIn = 0;
    lastOut = 0;
    for (const t of toolTexts(parsedIn)) lastIn += await count(t.text);
    for (const t of toolTexts(parsedOut)) lastOut += await count(t.text);
    toolIn += lastIn;
    toolOut += lastOut;
    if (previous) {
      pairs++;
      const same = previous.every(
        (m, i) => withoutBreakpoints(m) === withoutBreakpoints(parsedOut.messages[i]),
      );
      if (same) stable++;
      else unstable.push(k);
    }
    previous = parsedOut.messages;
  }
  return { turns: ends.length, pairs, stable, unstable, toolIn, toolOut, lastIn, lastOut };
}

export function sessionFiles() {
  const dir = join(CORPUS_TRANSCRIPTS, 'anthropic');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.anthropic.json'))
    .sort()
    .map((f) => join(dir, f));
}

function bodyFiles() {
  const openai = join(CORPUS_TRANSCRIPTS, 'openai');
  return [
    ...sessionFiles(),
    ...readdirSync(openai)
      .filter((f) => f.endsWith('.openai.json'))
      .sort()
      .map((f) => join(openai, f)),
  ];
}

const pct = (a, b) => (b === 0 ? '—' : `${((100 * (b - a)) / b).toFixed(1)} %`);

/** Prints the transcript tables; returns rows for bench/run.mjs. */
export async function main() {
  const { compact, createFsStore } = await import(join(root, 'dist', 'index.js'));
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const cache = new Map();
  const count = async (text) => {
    let n = cache.get(text);
    if (n === undefined) {
      n = countTokens(text, { disallowedSpecial: new Set() });
      cache.set(text, n);
    }
    return n;
  };
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-transcripts-'));
  const store = createFsStore({ dir: join(work, 'store'), ttlDays: 14, maxBytes: 1 << 30, compress: true });
  const lines = [];
  try {
    lines.push(
      'replay, preset agent (tool tokens summed over every request; stable = earlier messages unchanged)',
    );
    for (const file of sessionFiles()) {
      const body = JSON.parse(readFileSync(file, 'utf8'));
      const dir = join(work, `sessions-${lines.length}`);
      const t0 = performance.now();
      const r = await replaySession(body, {
        run: async (request) => (await compact(request, { preset: 'agent', store, session: { dir } })).output,
        count,
      });
      const ms = performance.now() - t0;
      lines.push(
        `  ${file.split('/').pop().replace('.anthropic.json', '').padEnd(40)} ${String(r.turns).padStart(4)} turns  ` +
          `tool tokens ${String(r.toolIn).padStart(9)} → ${String(r.toolOut).padStart(9)} (−${pct(r.toolOut, r.toolIn)})  ` +
          `stable ${r.stable}/${r.pairs} (${r.pairs ? ((100 * r.stable) / r.pairs).toFixed(1) : '—'} %)  ${(ms / r.turns).toFixed(0)} ms/turn`,
      );
    }
    lines.push('', 'per component, alone, on each whole corpus body (tool tokens saved, all bodies summed)');
    const bodies = bodyFiles().map((f) => readFileSync(f, 'utf8'));
    let before = 0;
    for (const input of bodies) for (const t of toolTexts(JSON.parse(input))) before += await count(t.text);
    for (const name of [
      'format',
      'dedup',
      'failed_run',
      'mask',
      'phi_evict',
      'smartcrush',
      'extract',
      'collapse',
    ]) {
      let after = 0;
      let rewrites = 0;
      for (const input of bodies) {
        const r = await compact(input, { components: name, store });
        rewrites += r.events.filter((e) => e.action === 'rewrite').length;
        for (const t of toolTexts(JSON.parse(r.output))) after += await count(t.text);
      }
      lines.push(
        `  ${name.padEnd(12)} ${String(before).padStart(8)} → ${String(after).padStart(8)}  −${pct(after, before).padStart(7)}  ${rewrites} outputs rewritten`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await main()) console.log(line);
}
