/**
 * Which outputs no filter handled, told from a run's events: the signal `cg discover` ranks and the
 * `unmatched` table counts. An output is unfiltered when cmdfilter looked and found no filter (its
 * skip reason, UNMATCHED_REASON), or when the only rewrites it got came from a generic fallback for
 * text nobody claimed (FALLBACK_COMPONENTS) — and never when cmdfilter rewrote it. A new fallback
 * component is one more name in that list.
 */
import type { PipelineEvent } from '../pipeline/run.js';

/** cmdfilter's skip reason when no filter's `match` picked the output (`no filter matches`, …ed). */
export const UNMATCHED_REASON = /^no filter match(?:es|ed)?\b/;

/** Components that rewrite text no filter claimed: their rewrite still means "no filter". */
export const FALLBACK_COMPONENTS: readonly string[] = ['fold'];

const FILTER_NOTE = /^filter (.+?): /;

/** The filter a cmdfilter rewrite applied, from its note (`filter git-log: 812 → 40 lines`). */
export function filterOf(e: Pick<PipelineEvent, 'component' | 'note'>): string | undefined {
  if (e.component !== 'cmdfilter' || !e.note) return undefined;
  return FILTER_NOTE.exec(e.note)?.[1];
}

export function isUnmatchedSkip(e: Pick<PipelineEvent, 'component' | 'action' | 'reason'>): boolean {
  return e.component === 'cmdfilter' && e.action === 'skip' && UNMATCHED_REASON.test(e.reason ?? '');
}

/** Output ids of the run that no filter handled. */
export function unfilteredOutputs(events: readonly PipelineEvent[]): Set<string> {
  const looked = new Set<string>();
  const filtered = new Set<string>();
  for (const e of events) {
    if (e.output === '*') continue;
    if (isUnmatchedSkip(e)) looked.add(e.output);
    else if (e.action === 'rewrite') {
      if (e.component === 'cmdfilter') filtered.add(e.output);
      else if (FALLBACK_COMPONENTS.includes(e.component)) looked.add(e.output);
    }
  }
  for (const id of filtered) looked.delete(id);
  return looked;
}
