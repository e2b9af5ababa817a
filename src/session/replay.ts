/**
 * Cache-stable replay. A provider's prompt cache breaks on any change to an earlier message, so
 * once cg has sent a tool output in some form, every later request of the same conversation must
 * send it in exactly that form again. openSession() turns the session's record into pins for the
 * pipeline (output id → the text sent before); save() records what this run sent.
 *
 * Decisions only move forward: an output sent as-is or shortened stays that way, except that a
 * transcript-scope component may later turn it into a placeholder (held back by the pipeline until
 * a batch is worth a cache break); a placeholder is final. An output whose original changed (an
 * edited history) is decided afresh; an output that arrives already as cg sent it (cg's output fed
 * back in) is replayed as it is and its entry left alone.
 */

import type { ToolOutput, Transcript } from '../input/transcript.js';
import type { Pin, Replay, Stage } from '../pipeline/run.js';
import { keyOf } from '../store/keys.js';
import { sessionIdentity } from './id.js';
import { currentRecord, detach, type KeptRecord, saveKept } from './kept-record.js';
import { sessionsDir } from './location.js';
import type { SessionMemo } from './memo.js';
import {
  loadRecord,
  type RecordEntry,
  recordEntry,
  recordPath,
  type SessionRecord,
  saveRecord,
} from './record.js';

/** Held-back rewrites apply once they save this many tokens, when no stage sets its own batch. */
export const DEFAULT_FLUSH_TOKENS = 10_000;

export interface SessionOptions {
  /** An explicit session id (--session); else CG_SESSION; else one derived from the conversation. */
  id?: string;
  /** Where records live; default <state dir>/sessions. */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  /** The batch for held-back rewrites when no stage asks for one (batchTokens). */
  flushTokens?: number;
  /**
   * A long-lived caller's memory of this session's record (kept-record.ts): read from disk only when
   * another process wrote it, and saved by appending what changed.
   */
  kept?: KeptRecord;
  /** keyOf of an output's original when the caller knows it already (an output of an earlier turn). */
  hashOf?: (o: ToolOutput) => string | undefined;
}

export interface Session {
  /** The session id, or "derived:<key>". */
  label: string;
  replay: Replay;
  /** Component state from earlier turns; what is set now is saved with the record. */
  memo: SessionMemo;
  /**
   * Output id → keyOf of its original, for this turn's outputs whose key the caller did not give
   * (hashOf): a caller that gave one has it already.
   */
  hashes: ReadonlyMap<string, string>;
  /**
   * The sent text the record holds for an output (after save, this turn's): a caller keeping texts
   * between turns keeps these very strings rather than copies of its own.
   */
  sentText(outputId: string): string | undefined;
  /**
   * Records what this run sent (`gone`: outputs whose messages were replaced, not sent at all);
   * returns an error message when the record could not be written.
   */
  save(
    rewrites: ReadonlyMap<string, string>,
    finals: ReadonlySet<string>,
    gone?: ReadonlySet<string>,
  ): Promise<string | undefined>;
}

/** The smallest batch any stage asks for (mask's batch_tokens), else the fallback. */
export function batchFor(stages: readonly Stage[], fallback: number): number {
  let batch = Number.POSITIVE_INFINITY;
  for (const { component, config } of stages) {
    if (component.scope !== 'transcript' || !component.batchTokens) continue;
    try {
      batch = Math.min(batch, component.batchTokens(config));
    } catch {
      // A broken batchTokens() is ignored: the fallback stands in.
    }
  }
  return Number.isFinite(batch) ? batch : fallback;
}

/** Whether a stage, with its config, keeps state across runs (a broken answer counts as no). */
export function keepsState(stages: readonly Stage[]): boolean {
  return stages.some(({ component, config }) => {
    try {
      return component.keepsSessionState?.(config as never) === true;
    } catch {
      return false;
    }
  });
}

/** Forward only: a final placeholder never changes again; otherwise what was sent first stands. */
export function mergeEntry(onDisk: RecordEntry, ours: RecordEntry): RecordEntry {
  if (onDisk.f) return onDisk;
  return ours.f ? ours : onDisk;
}

export async function openSession(
  t: Transcript,
  stages: readonly Stage[],
  opts: SessionOptions = {},
): Promise<Session | undefined> {
  const env = opts.env ?? process.env;
  const explicit = opts.id ?? (env.CG_SESSION || undefined);
  // Raw text has no conversation: it gets one shared record, for the state a stage keeps (a model's
  // result for the same output, so the same input gives the same bytes).
  const identity =
    t.format === 'text'
      ? { label: explicit ?? 'raw-text', key: keyOf(`text\u0000${explicit ?? ''}`) }
      : sessionIdentity(t, explicit);
  // Nothing to pin and no state to keep: no record.
  if (
    !identity ||
    (t.outputs.length === 0 && !keepsState(stages)) ||
    (t.format === 'text' && !keepsState(stages))
  )
    return undefined;
  const dir = opts.dir ?? sessionsDir(env);
  if (dir === undefined) return undefined;
  const path = recordPath(dir, identity.key);
  const { kept } = opts;
  const record =
    (kept && (await currentRecord(kept, path))) ?? (await loadRecord(path, identity.label, mergeEntry));

  const hashes = new Map<string, string>();
  const echoes = new Set<string>();
  const pins = new Map<string, Pin>();
  // Raw text is no conversation: nothing is pinned (a later run with another config must not get
  // this run's bytes back), only the memo is kept.
  const conversation = t.format !== 'text';
  const outputs = conversation ? t.outputs : [];
  // Each output's hash and record entry, by its index, for save(): a long session has tens of
  // thousands, and looking each up again by id costs as much as the whole of the rest of save. The
  // record is the same object until save (only saving changes it), so what is found now holds then.
  const hashAt: string[] = new Array(outputs.length);
  const entryAt: (RecordEntry | undefined)[] = new Array(outputs.length);
  // The keys hashed here from the outputs themselves, by index, for the markers of this run (one the
  // caller gave is for the record only: it may have come by an id two outputs share).
  const keyAt: (string | undefined)[] = new Array(outputs.length);
  for (let i = 0; i < outputs.length; i++) {
    const o = outputs[i]!;
    let h = opts.hashOf?.(o);
    if (h === undefined) {
      h = keyOf(o.bytes ?? o.text);
      hashes.set(o.id, h);
      keyAt[i] = h;
    }
    hashAt[i] = h;
    const e = record.outputs.get(o.id);
    entryAt[i] = e;
    if (!e) continue;
    if (e.h === h) {
      // rewritten: what was sent is not the original (the record keeps t only then).
      pins.set(o.id, { text: e.t ?? o.text, final: e.f === 1, rewritten: e.t !== undefined });
    } else if (e.t !== undefined && e.t === o.text) {
      echoes.add(o.id);
      pins.set(o.id, { text: o.text, final: e.f === 1 });
    }
  }

  const memoSet = new Map<string, string>();
  return {
    label: identity.label,
    hashes,
    sentText: (outputId) => (kept?.record ?? record).outputs.get(outputId)?.t,
    replay: {
      pins,
      flushTokens: batchFor(stages, opts.flushTokens ?? DEFAULT_FLUSH_TOKENS),
      // By index, never by id: two outputs may share an id and not their text.
      ...(conversation ? { keyAt } : {}),
    },
    memo: {
      get: (k) => memoSet.get(k) ?? record.memo?.get(k),
      set: (k, v) => {
        memoSet.set(k, v);
      },
    },
    async save(rewrites, finals, gone) {
      const ours: SessionRecord = { id: identity.label, outputs: new Map(), memo: memoSet };
      const checkEchoes = echoes.size > 0;
      const checkGone = gone !== undefined && gone.size > 0;
      for (let i = 0; i < outputs.length; i++) {
        const o = outputs[i] as ToolOutput;
        if ((checkEchoes && echoes.has(o.id)) || (checkGone && gone.has(o.id))) continue;
        const h = hashAt[i]!;
        const was = entryAt[i];
        // A final entry stays as it is (mergeEntry): nothing to ask of this output.
        if (kept && was?.f === 1 && was.h === h) continue;
        const final = finals.has(o.id);
        if (kept) {
          // What merging it would leave as it is need not be written (nor its text read): an entry
          // changes only by becoming final (mergeEntry).
          if (was && was.h === h && (was.f === 1 || !final)) continue;
        }
        const sent = rewrites.get(o.id);
        const t = sent !== undefined && sent !== o.text ? (kept ? detach(sent) : sent) : undefined;
        ours.outputs.set(kept ? detach(o.id) : o.id, recordEntry(h, t, final));
      }
      if (kept) {
        if (memoSet.size > 0)
          ours.memo = new Map([...memoSet].map(([k, v]) => [detach(k), detach(v)] as [string, string]));
        return await saveKept(kept, dir, path, record, ours, mergeEntry);
      }
      return await saveRecord(dir, path, ours, mergeEntry);
    },
  };
}
