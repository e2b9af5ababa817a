/**
 * Recording: what call sites use after their output is written.
 *
 *   recordCompaction(events, meta)   after a compaction run (compress, cg run), once per run
 *   recordExpand({ key, hit, … })    after `cg expand` served (or failed to find) a key
 *   recordExpands([…])               the same for every key of one `cg expand`, in one write
 *
 * Both are fire-and-forget safe: they never throw and never tokenize. A run whose figures are all
 * known (nothing rewritten, or `meta.counts` from countRun covers every text) becomes ledger lines
 * at once, in one O_APPEND write; otherwise it becomes a pending record (pending.ts) that the next
 * reader counts exactly. The hot-path cost is one small append, plus for a rewriting run one small
 * file holding the short texts to count (a stashed original is referenced by its store key, never
 * copied: the state directory holds no copy of what the store holds).
 * `CG_STATS=0` turns recording off; the session is `meta.session`, else `$CG_SESSION`.
 *
 * Each run records the agent host that ran cg and the door it came through (hosts.ts: meta.host,
 * else CG_HOST, else the host's own variable; meta.via, else CG_VIA, else `pipe`). For a tool output
 * on its way to a host that caps what it shows, the out line also gets the tokens of what the host
 * would have shown (hi, ho): counted at settle time from the host's view of the stashed original,
 * which the pending record references by key like the original itself.
 *
 * What cg's own model calls cost rides on the event that carries it (PipelineEvent.modelUsage) into
 * its ev line (mc, mi, mo, …: model-usage.ts), whatever door the run came through.
 */
import type { PipelineEvent } from '../pipeline/run.js';
import { keyOf } from '../store/keys.js';
import type { TokenizerName } from '../tokens.js';
import type { RunCounts } from './footer.js';
import { hostCaps, hostModel, hostView, hostViewBytesBound, resolveHost } from './hosts.js';
import { appendLines } from './ledger.js';
import { type ExpandLine, formatLine, type LedgerLine } from './line.js';
import { ledgerLocation, statsEnabled } from './paths.js';
import {
  estimateTokens,
  type Fill,
  PENDING_BUDGET,
  pendingBytes,
  RECORD_INLINE_MAX,
  type TextRef,
  writePendingRecord,
} from './pending.js';
import { type RunPlan, registerTexts, runLines } from './run-lines.js';
import { summarizeRun } from './runs.js';
import { TextTable, viewOf, viewOfStored } from './text-table.js';
import { unfilteredOutputs } from './unfiltered.js';

export interface RecordMeta {
  /** Session id; default $CG_SESSION. */
  session?: string;
  /** The command that produced the input (`cg run -- CMD`, `--command`), when outputs carry none. */
  command?: string;
  /** The input format (text, openai, anthropic, responses). */
  format: string;
  /** The tokenizer the run's decisions used: counts are made with the same one. */
  tokenizer: TokenizerName;
  /** The store the run stashed originals in (store.dir): big originals are counted from there. */
  storeDir?: string;
  /** Counts already made (countRun, for the footer): those texts are not counted again. */
  counts?: RunCounts;
  /**
   * The exact counts the run's own token counter already made, by text (Tokens.known, with the
   * same tokenizer): the proxy hands its pipeline's over, so those texts are never counted again.
   */
  known?: (text: string) => number | undefined;
  /** The agent host the output goes to (claude-code, codex, gemini, …); default from the environment. */
  host?: string;
  /** The door cg was reached through: pipe, hook, proxy, mcp; default $CG_VIA, else pipe. */
  via?: string;
  env?: NodeJS.ProcessEnv;
  now?: number;
}

export interface ExpandRecord {
  key: string;
  hit: boolean;
  /** Bytes written for this key. */
  bytes: number;
  /** What was written (the original, or the --lines/--grep slice of it), to count its tokens. */
  output?: string | Uint8Array;
  session?: string;
  storeDir?: string;
  tokenizer?: TokenizerName;
  /** The agent host reading the output (it caps a long one as it caps any command's); as RecordMeta. */
  host?: string;
  env?: NodeJS.ProcessEnv;
  now?: number;
}

let runCounter = 0;

/** Unique per record on this host: time, pid, a counter and a little randomness. */
function runId(now: number): string {
  const rand = Math.floor(Math.random() * 36 ** 4)
    .toString(36)
    .padStart(4, '0');
  return `${now.toString(36)}${process.pid.toString(36)}${(runCounter++).toString(36)}${rand}`;
}

function sessionOf(explicit: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const s = explicit ?? env.CG_SESSION;
  return s ? s : undefined;
}

export async function recordCompaction(events: readonly PipelineEvent[], meta: RecordMeta): Promise<void> {
  try {
    const env = meta.env ?? process.env;
    if (!statsEnabled(env)) return;
    const t = meta.now ?? Date.now();
    const r = runId(t);
    const s = sessionOf(meta.session, env);
    const host = resolveHost(meta.host, env);
    const via = meta.via ?? (env.CG_VIA || 'pipe');
    const run = summarizeRun(events);
    const plan: RunPlan = {
      base: { t, r, ...(s ? { s } : {}) },
      meta,
      events,
      run,
      host,
      via,
      // A request body (proxy) already holds what the host showed; a tool output is capped on its way.
      capping: via !== 'proxy' && meta.format === 'text' ? hostModel(host) : undefined,
      unfiltered: unfilteredOutputs(events),
      rewrittenIds: new Set(run.rewritten.map((o) => o.id)),
    };
    const table = new TextTable();
    const fill = registerTexts(plan, table);
    for (const entry of table.texts) {
      if (entry.view) continue; // its text is the original; what is counted is the host's view of it
      if (typeof entry.text !== 'string') continue;
      const known = meta.counts?.counted.get(entry.text) ?? meta.known?.(entry.text);
      if (known !== undefined) entry.n = known;
    }
    await commit(env, r, meta.tokenizer, () => runLines(plan), fill, table, meta.storeDir);
  } catch {
    // Stats never break a run: a ledger that cannot be written loses this run's figures, nothing else.
  }
}

export async function recordExpand(rec: ExpandRecord): Promise<void> {
  await recordExpands([rec]);
}

/** Keys one `cg expand` served, recorded together: one ledger write or pending record for all. */
export async function recordExpands(recs: readonly ExpandRecord[]): Promise<void> {
  try {
    const first = recs[0];
    if (!first) return;
    const env = first.env ?? process.env;
    if (!statsEnabled(env)) return;
    const t = first.now ?? Date.now();
    const table = new TextTable();
    const fill: Fill[] = [];
    const lines: ExpandLine[] = [];
    for (const rec of recs) {
      const s = sessionOf(rec.session, env);
      const at = lines.length;
      const line: ExpandLine = {
        t,
        r: runId(t),
        ...(s ? { s } : {}),
        e: 'x',
        k: rec.key,
        hit: rec.hit ? 1 : 0,
        b: rec.hit ? rec.bytes : 0,
        tr: 0,
      };
      lines.push(line);
      if (!rec.hit) continue;
      const out = rec.output;
      const host = resolveHost(rec.host, env);
      const capping = hostModel(host);
      if (host) line.h = host;
      let text: string | undefined;
      let whole = out === undefined;
      let written = rec.bytes;
      if (out === undefined) {
        // No text given: the whole original was returned; count it from the store.
        fill.push([at, 'tr', [table.add(undefined, rec.bytes, rec.key)]]);
      } else {
        const bytes = typeof out === 'string' ? Buffer.byteLength(out) : out.length;
        written = bytes;
        // The whole original is counted from the store, never copied into a pending record.
        whole = bytes === rec.bytes && keyOf(out) === rec.key;
        const index = table.texts.length;
        table.texts.push({ ...(whole ? {} : { text: out }), bytes, ...(whole ? { key: rec.key } : {}) });
        fill.push([at, 'tr', [index]]);
        text = typeof out === 'string' ? out : Buffer.from(out).toString('utf8');
      }
      // The host shows an expand's output as it shows any command's: a long one is cut too.
      if (capping && host && hostCaps(capping, text, written)) {
        line.hr = 0;
        const view =
          whole && text === undefined
            ? viewOfStored(table, host, rec.bytes, rec.key)
            : whole
              ? table.addView(host, text!, written, rec.key)
              : viewOf(table, host, text, written);
        fill.push([at, 'hr', [view]]);
      }
    }
    await commit(env, runId(t), first.tokenizer ?? 'o200k', () => lines, fill, table, first.storeDir);
  } catch {
    // as above: never break `cg expand`
  }
}

/**
 * Ledger lines now when every figure is known, else a pending record for a reader to count. What a
 * record may hold is bounded (pending.ts): a stashed original is referenced by its key, never
 * copied; other texts are inline while the record and the whole pending directory stay within
 * their budgets; a text past them is estimated, and its lines say so.
 */
async function commit(
  env: NodeJS.ProcessEnv,
  r: string,
  tokenizer: string,
  lines: () => Iterable<LedgerLine>,
  fill: Fill[],
  table: TextTable,
  storeDir: string | undefined,
): Promise<void> {
  const loc = ledgerLocation(env);
  const refs: TextRef[] = [];
  const blobs: (string | Uint8Array)[] = [];
  let at = 0;
  let deferred = false;
  // Read once, and only by a run that has something to defer: one readdir of the pending directory.
  let room: number | undefined;
  const roomLeft = async () =>
    (room ??= Math.min(RECORD_INLINE_MAX, PENDING_BUDGET - (await pendingBytes(loc))));
  for (const entry of table.texts) {
    const ref: TextRef = { b: entry.bytes };
    if (entry.n !== undefined) ref.n = entry.n;
    else if (entry.key && storeDir) {
      if ((await roomLeft()) > 0) {
        ref.key = entry.key;
        ref.store = storeDir;
        if (entry.view) ref.view = entry.view;
        deferred = true;
      } else if (entry.view) ref.b = hostViewBytesBound(hostModel(entry.view)!, entry.bytes);
    } else if (entry.view) {
      // Not stashed after all (no store): the view's text is short, count it as a text of its own.
      const view = hostView(hostModel(entry.view)!, String(entry.text ?? ''));
      entry.text = view;
      ref.b = Buffer.byteLength(view);
      if (at + ref.b <= (await roomLeft())) {
        ref.at = at;
        at += ref.b;
        blobs.push(view);
        deferred = true;
      }
    } else if (entry.text !== undefined) {
      const bytes = typeof entry.text === 'string' ? Buffer.byteLength(entry.text) : entry.text.length;
      if (at + bytes <= (await roomLeft())) {
        ref.b = bytes;
        ref.at = at;
        at += bytes;
        blobs.push(entry.text);
        deferred = true;
      }
    }
    refs.push(ref);
  }
  if (!deferred) {
    // Everything is counted already or can only be estimated: straight to the ledger.
    await appendLines(loc, formatted(withFigures(lines(), fill, refs)));
    return;
  }
  await writePendingRecord(loc, { v: 1, r, tk: tokenizer, fill, texts: refs }, lines(), blobs);
}

/** Each line with the token fields its fill entries sum, from counts or estimates (then est:1). */
function* withFigures(lines: Iterable<LedgerLine>, fill: readonly Fill[], refs: readonly TextRef[]) {
  const byLine = new Map<number, Fill[]>();
  for (const f of fill) {
    const list = byLine.get(f[0]);
    if (list) list.push(f);
    else byLine.set(f[0], [f]);
  }
  let index = 0;
  for (const line of lines) {
    for (const [, field, texts] of byLine.get(index++) ?? []) {
      const l = line as LedgerLine & Record<string, unknown>;
      let sum = 0;
      for (const i of texts) {
        const ref = refs[i]!;
        if (ref.n !== undefined) sum += ref.n;
        else {
          sum += estimateTokens(ref.b);
          l.est = 1;
        }
      }
      l[field] = sum;
    }
    yield line;
  }
}

function* formatted(lines: Iterable<LedgerLine>): Generator<string> {
  for (const line of lines) yield formatLine(line);
}
