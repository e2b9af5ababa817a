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
 */
import type { PipelineEvent } from '../pipeline.js';
import { keyOf } from '../store/keys.js';
import type { TokenizerName } from '../tokens.js';
import type { RunCounts } from './footer.js';
import { appendLines } from './ledger.js';
import {
  type EvLine,
  type ExpandLine,
  formatLine,
  type LedgerLine,
  type OutLine,
  type RunLine,
} from './line.js';
import { ledgerLocation, statsEnabled } from './paths.js';
import {
  estimateTokens,
  type Fill,
  PENDING_BUDGET,
  type PendingHeader,
  pendingBytes,
  RECORD_INLINE_MAX,
  type TextRef,
  writePending,
} from './pending.js';
import { summarizeRun } from './runs.js';

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

/** Texts to count, deduplicated by value (a component's output is the next one's input). */
class TextTable {
  readonly texts: { text?: string | Uint8Array; bytes: number; key?: string; n?: number }[] = [];
  private readonly byText = new Map<string, number>();

  add(text: string | undefined, bytes: number, key?: string): number {
    if (text !== undefined) {
      const seen = this.byText.get(text);
      if (seen !== undefined) {
        if (key) this.texts[seen]!.key = key;
        return seen;
      }
      this.byText.set(text, this.texts.length);
    }
    this.texts.push({ ...(text !== undefined ? { text } : {}), bytes, ...(key ? { key } : {}) });
    return this.texts.length - 1;
  }
}

export async function recordCompaction(events: readonly PipelineEvent[], meta: RecordMeta): Promise<void> {
  try {
    const env = meta.env ?? process.env;
    if (!statsEnabled(env)) return;
    const t = meta.now ?? Date.now();
    const r = runId(t);
    const s = sessionOf(meta.session, env);
    const base = { t, r, ...(s ? { s } : {}) };
    const run = summarizeRun(events);
    const table = new TextTable();
    const fill: Fill[] = [];
    const lines: LedgerLine[] = [];

    const runLine: RunLine = {
      ...base,
      e: 'run',
      fmt: meta.format,
      tk: meta.tokenizer,
      ...(meta.command ? { cmd: meta.command } : {}),
      n: run.outputs,
      rw: run.rewritten.length,
      ub: run.untouchedBytes,
    };
    lines.push(runLine);
    for (const o of run.rewritten) {
      const command = o.command ?? meta.command;
      const out: OutLine = {
        ...base,
        e: 'out',
        o: o.id,
        ...(command ? { cmd: command } : {}),
        ...(o.toolName ? { tool: o.toolName } : {}),
        bi: o.bytesIn,
        bo: o.bytesOut,
        ti: 0,
        to: 0,
        ...(o.key ? { k: o.key } : {}),
      };
      fill.push([lines.length, 'ti', [table.add(o.original, o.bytesIn, o.key)]]);
      fill.push([lines.length, 'to', [table.add(o.final, o.bytesOut)]]);
      lines.push(out);
    }
    for (const e of events) {
      const command = e.command ?? meta.command;
      const ev: EvLine = {
        ...base,
        e: 'ev',
        c: e.component,
        a: e.action,
        o: e.output,
        ...(command ? { cmd: command } : {}),
        ...(e.toolName ? { tool: e.toolName } : {}),
        ...(e.reason ? { why: e.reason } : {}),
        bi: e.bytesIn,
        bo: e.bytesOut,
        ...(e.key ? { k: e.key } : {}),
        ...(e.loss ? { loss: e.loss } : {}),
      };
      // A rewrite with no texts and no bytes (a structural edit such as a cache breakpoint) changes
      // no output's tokens: it is recorded without token figures rather than as a zero estimate.
      if (e.action === 'rewrite' && (e.before !== undefined || e.after !== undefined || e.bytesIn > 0)) {
        ev.ti = 0;
        ev.to = 0;
        fill.push([lines.length, 'ti', [table.add(e.before, e.bytesIn)]]);
        fill.push([lines.length, 'to', [table.add(e.after, e.bytesOut)]]);
      }
      lines.push(ev);
    }
    for (const entry of table.texts) {
      const known = typeof entry.text === 'string' ? meta.counts?.counted.get(entry.text) : undefined;
      if (known !== undefined) entry.n = known;
    }
    await commit(meta.env ?? process.env, r, meta.tokenizer, lines, fill, table, meta.storeDir);
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
      if (rec.hit) {
        const out = rec.output;
        if (out === undefined) {
          // No text given: the whole original was returned; count it from the store.
          fill.push([lines.length, 'tr', [table.add(undefined, rec.bytes, rec.key)]]);
        } else {
          const bytes = typeof out === 'string' ? Buffer.byteLength(out) : out.length;
          // The whole original is counted from the store, never copied into a pending record.
          const whole = bytes === rec.bytes && keyOf(out) === rec.key;
          const index = table.texts.length;
          table.texts.push({ ...(whole ? {} : { text: out }), bytes, ...(whole ? { key: rec.key } : {}) });
          fill.push([lines.length, 'tr', [index]]);
        }
      }
      lines.push({
        t,
        r: runId(t),
        ...(s ? { s } : {}),
        e: 'x',
        k: rec.key,
        hit: rec.hit ? 1 : 0,
        b: rec.hit ? rec.bytes : 0,
        tr: 0,
      });
    }
    await commit(env, runId(t), first.tokenizer ?? 'o200k', lines, fill, table, first.storeDir);
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
  lines: LedgerLine[],
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
    for (const [index, field, texts] of fill) {
      const line = lines[index] as LedgerLine & Record<string, unknown>;
      let sum = 0;
      for (const i of texts) {
        const ref = refs[i]!;
        if (ref.n !== undefined) sum += ref.n;
        else {
          sum += estimateTokens(ref.b);
          line.est = 1;
        }
      }
      line[field] = sum;
    }
    await appendLines(loc, lines.map(formatLine));
    return;
  }
  const header: PendingHeader = { v: 1, r, tk: tokenizer, lines, fill, texts: refs };
  await writePending(loc, header, blobs);
}
