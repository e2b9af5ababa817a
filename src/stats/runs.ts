/**
 * What one compaction run did, per tool output, from the pipeline's events: the text each rewritten
 * output started as (its original, the first rewrite's `before`) and ended as (the last rewrite's
 * `after`, marker and hint included), its marker key, and the bytes of the outputs left untouched.
 * Per-output first/last texts are what the run's totals are counted on: summing each component's
 * in/out would count a text once per component that touched it.
 */
import type { PipelineEvent } from '../pipeline/run.js';

export interface OutputSummary {
  id: string;
  command?: string;
  toolName?: string;
  bytesIn: number;
  bytesOut: number;
  /** Undefined only when an event carried no texts (then its tokens can only be estimated). */
  original?: string;
  final?: string;
  /** The store key of the original, when a lossy rewrite stashed it. */
  key?: string;
  rewrites: PipelineEvent[];
}

export interface RunSummary {
  /** Tool outputs the run saw (events about '*', a whole component, name none). */
  outputs: number;
  rewritten: OutputSummary[];
  untouchedBytes: number;
}

export function summarizeRun(events: readonly PipelineEvent[]): RunSummary {
  const seen = new Map<string, { bytes: number; out?: OutputSummary }>();
  for (const e of events) {
    if (e.output === '*') continue;
    let entry = seen.get(e.output);
    if (!entry) {
      entry = { bytes: e.bytesIn };
      seen.set(e.output, entry);
    }
    if (e.action !== 'rewrite') continue;
    if (!entry.out) {
      entry.out = {
        id: e.output,
        ...(e.command !== undefined ? { command: e.command } : {}),
        ...(e.toolName !== undefined ? { toolName: e.toolName } : {}),
        bytesIn: e.bytesIn,
        bytesOut: e.bytesOut,
        ...(e.before !== undefined ? { original: e.before } : {}),
        rewrites: [],
      };
    }
    const out = entry.out;
    out.rewrites.push(e);
    out.bytesOut = e.bytesOut;
    if (e.after !== undefined) out.final = e.after;
    else delete out.final;
    if (e.key !== undefined) out.key = e.key;
  }
  const rewritten: OutputSummary[] = [];
  let untouchedBytes = 0;
  for (const entry of seen.values()) {
    if (entry.out) rewritten.push(entry.out);
    else untouchedBytes += entry.bytes;
  }
  return { outputs: seen.size, rewritten, untouchedBytes };
}
