/**
 * Which proposed structural edits a body can take. A cache breakpoint needs a message whose content
 * is a list of blocks (the reader notes its last block), must not double one already there, and the
 * Anthropic API refuses a request with more than MAX_CACHE_BREAKPOINTS of them.
 */
import type { MessageView, StructuralEdit } from './transcript.js';

export const MAX_CACHE_BREAKPOINTS = 4;

type Breakpoint = Extract<StructuralEdit, { kind: 'cache_breakpoint' }>;
export type EditVerdict = { ok: true; edit: Breakpoint } | { ok: false; reason: string };

/**
 * Judges each proposal in order against the messages, the breakpoints the body already has, and the
 * edits accepted so far (earlier stages included).
 */
export function judgeEdits(
  proposed: readonly unknown[],
  messages: readonly MessageView[],
  existing: number,
  accepted: readonly StructuralEdit[],
): EditVerdict[] {
  const placed = accepted.filter((e): e is Breakpoint => e.kind === 'cache_breakpoint');
  const taken = new Set(placed.map((e) => e.messageIndex));
  let budget = MAX_CACHE_BREAKPOINTS - existing - placed.length;
  return proposed.map((p): EditVerdict => {
    const e = p as Partial<Breakpoint> | undefined;
    const i = e?.messageIndex;
    if (e?.kind !== 'cache_breakpoint' || typeof i !== 'number')
      return { ok: false, reason: 'unknown structural edit' };
    const block = Number.isInteger(i) ? messages[i]?.lastBlock : undefined;
    if (!block) return { ok: false, reason: `message ${i} has no content block for a cache breakpoint` };
    if (block.cacheControl || taken.has(i)) return { ok: false, reason: 'breakpoint already there' };
    if (budget <= 0)
      return { ok: false, reason: `the body already has ${MAX_CACHE_BREAKPOINTS} cache breakpoints` };
    budget--;
    taken.add(i);
    return { ok: true, edit: { kind: 'cache_breakpoint', messageIndex: i } };
  });
}
