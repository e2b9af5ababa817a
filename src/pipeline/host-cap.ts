/**
 * The host gate (DESIGN §1.9, "the host is the baseline"): what cg hands an agent host for its
 * model is never more tokens than the host itself would have shown of the original. Hosts do not
 * pass a long shell output through whole (src/hosts/NAME/limits.ts: Claude Code previews 2 KB of one
 * over 30,000 characters, Codex keeps 20 KB of each end, Gemini CLI 8 K and 32 K); a filter's
 * rewrite of a 300 KB log can be far under the original and still several times that preview.
 *
 * Run once after every stage, on the shell command outputs of this turn (not sent before, not
 * verbatim, carrying no marker of an earlier door — a hook that already replaced it): where the
 * output as it now stands is more tokens than the host's view of its original, it is cut further
 * with fitLines — error/warning lines, failure locations and the summary line first — under one
 * marker for the whole original, judged and stashed like any lossy rewrite (settle.ts). An output
 * cg left as it came is cut too when the host would have cut it (the proxy sees what a client
 * sends, and a client without its own cut gets the host's budget). The exception, by design: a
 * tool error keeps every failure line (§1.5), even when they alone pass the host's cut — the
 * event's note says so. A tool error cg did not rewrite stays verbatim (invariant 5): the host
 * shows its own cut of it.
 */
import { now } from '../clock.js';
import { type Component, MARKER_SLOT, type Outcome } from '../component.js';
import { hasFailureSignal } from '../dsl/failure-lines.js';
import { type HostLimit, hostCaps, hostView } from '../hosts/limits.js';
import { keyOf } from '../store/keys.js';
import { hasMarker, hint, marker } from '../store/marker.js';
import { fitLines } from '../text/fit-lines.js';
import { byteLength } from '../tokens.js';
import { base } from './event.js';
import { emit, type Run } from './run-state.js';
import { settle } from './settle.js';
import type { Slot } from './slots.js';
import { alwaysVerbatim } from './verbatim.js';

/** The gate as a component, for the events and judging it shares with the stages (never run). */
const HOST_CAP: Component = {
  name: 'host_cap',
  lossy: true,
  scope: 'output',
  summary: 'Never more tokens than the agent host would have shown of the original',
  defaults: {},
  parseConfig: () => ({}),
  run: () => ({ kind: 'skip', gate: 'run by the pipeline' }),
};

export async function capToHost(run: Run, host: HostLimit): Promise<void> {
  for (const slot of run.slots) {
    if (!candidate(slot)) continue;
    const started = now();
    try {
      await capSlot(run, host, slot, started);
    } catch (err) {
      const why = err instanceof Error ? err.message.split('\n')[0]! : String(err);
      emit(run, base(HOST_CAP.name, slot.output.id, 'fail', byteLength(slot.current), 0, why, slot.output));
    }
  }
}

function candidate(slot: Slot): boolean {
  if (slot.gone || slot.pinned || slot.held) return false;
  const o = slot.output;
  // The host's limits are those of its shell tool: an output with the command that printed it.
  if (o.command === undefined || alwaysVerbatim(o) !== undefined) return false;
  return !(o.isError && slot.current === slot.original);
}

async function capSlot(run: Run, host: HostLimit, slot: Slot, started: number): Promise<void> {
  const { tokens } = run.opts;
  const original = slot.original;
  // Within the host's inline limit the host shows the original whole, and never-worse already
  // keeps cg's version under it.
  if (!hostCaps(host, original, slot.output.bytes?.length ?? byteLength(original))) return;
  const view = hostView(host, original);
  // An earlier door (cg's hook) put its own marker in: that output is decided.
  if (hasMarker(original)) return;
  const budget = await tokens.count(view);
  if (!(await tokens.exceeds(slot.current, budget))) return;
  if (!(await run.canStash())) {
    emit(
      run,
      base(HOST_CAP.name, slot.output.id, 'skip', byteLength(slot.current), 0, 'no store', slot.output),
    );
    return;
  }
  const key = slot.key ?? keyOf(original);
  const tag = marker(key) + hint(run.template, key);
  const room = budget - (await tokens.count(tag)) - 1;
  const error = slot.output.isError;
  const fitted = await fitLines(withoutTag(slot.current, marker(key)), {
    budget: Math.max(0, room),
    count: (t) => tokens.count(t),
    ...(error ? { mustKeep: hasFailureSignal } : {}),
  });
  const shown = `${fitted.kept} of ${fitted.lines} lines`;
  const note = fitted.over
    ? `kept every failure line of a tool error (${shown}), over the ${budget} tokens the host would have shown`
    : `${shown}, within the ${budget} tokens the host would have shown`;
  const outcome: Outcome = {
    kind: 'rewrite',
    text: fitted.text.endsWith('\n') ? `${fitted.text}${MARKER_SLOT}\n` : `${fitted.text}\n${MARKER_SLOT}`,
    loss: 'whole',
    note,
  };
  // Judged against the output as it stands, so the marker placed is the original's (judge.ts).
  delete slot.tag;
  await settle(run, HOST_CAP, slot, { kind: 'ok', value: outcome }, started, {
    open: true,
    keepFailureLines: error,
  });
}

/**
 * The text without this original's marker and the hint after it: a marker on a line of its own
 * goes with its line; one at the end of an omission line leaves that line as it was before.
 */
function withoutTag(text: string, mark: string): string {
  for (let at = text.indexOf(mark); at !== -1; at = text.indexOf(mark)) {
    const lineStart = text.lastIndexOf('\n', at - 1) + 1;
    const nl = text.indexOf('\n', at);
    const alone = text.slice(lineStart, at).trim() === '';
    const from = alone ? lineStart : at - (text[at - 1] === ' ' ? 1 : 0);
    const to = nl === -1 ? text.length : alone ? nl + 1 : nl;
    text = text.slice(0, from) + text.slice(to);
  }
  return text;
}
