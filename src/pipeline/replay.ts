/**
 * Replayed decisions keep their promise (DESIGN §1.1): a pin re-sends text from an earlier turn,
 * and a marker in that text must still expand, although the store may have been cleared or pruned
 * since. The request still holds the original, so before the pipeline runs, a pinned marker whose
 * entry is gone is stashed again from it (whether entries are there is asked once for all of a
 * request's pins, hasMany, where the store can tell; otherwise a put, which only compares bytes
 * already there). A pin whose marker cannot be backed — the stash fails, or it names an original
 * this request does not hold — is dropped: the output is decided afresh, as if it had never been
 * sent.
 */
import type { ToolOutput } from '../input/transcript.js';
import { keyOf } from '../store/keys.js';
import { hasMarker, markerKeys } from '../store/marker.js';
import { hasAll, type Store } from '../store/store.js';
import type { Pin } from './slots.js';
import { stash } from './stash.js';
import { alwaysVerbatim } from './verbatim.js';

export interface BackedPins {
  pins: Map<string, Pin>;
  /** Pins whose original had gone from the store and was stashed again from the request. */
  restashed: number;
  /** Pins dropped because their markers could not be backed. */
  dropped: number;
}

/**
 * `known`: pins the caller knows are backed (a long-lived caller's: what it sent and backed last
 * turn, while the store says nothing was removed since) — not asked about again; it is given each
 * output with its index in outputs.
 */
export async function backPins(
  outputs: readonly ToolOutput[],
  pins: ReadonlyMap<string, Pin>,
  store: Store,
  known?: (o: ToolOutput, pin: Pin, index: number) => boolean,
): Promise<BackedPins> {
  // The pins as given, copied only when one is dropped (a long session's are tens of thousands).
  let copied: Map<string, Pin> | undefined;
  const backed: BackedPins = {
    get pins() {
      return copied ?? (pins as Map<string, Pin>);
    },
    restashed: 0,
    dropped: 0,
  };
  // Only pins that re-send a marker need backing; whether their entries are there is one batch.
  const wanted: { o: ToolOutput; keys: string[] }[] = [];
  for (let i = 0; i < outputs.length; i++) {
    const o = outputs[i]!;
    const pin = pins.get(o.id);
    if (pin && known?.(o, pin, i)) continue;
    // A verbatim output is sent as it is, whatever its pin says (slots.ts). The marker test comes
    // first: it spares reading an original that has no marker to back.
    if (!pin || !hasMarker(pin.text) || alwaysVerbatim(o)) continue;
    // The session knows whether the pin is the original (its record keeps a sent text only then).
    if (pin.rewritten === false || (pin.rewritten === undefined && pin.text === o.text)) continue;
    wanted.push({ o, keys: markerKeys(pin.text) });
  }
  if (wanted.length === 0) return backed;
  const asked = [...new Set(wanted.flatMap((w) => w.keys))];
  const answers = await hasAll(store, asked);
  const there = new Set(answers ? asked.filter((_, i) => answers[i]) : []);
  for (const { o, keys: all } of wanted) {
    if (all.every((k) => there.has(k))) continue;
    // Markers the original itself carries are the agent's text, not cg's to back.
    const own = new Set(markerKeys(o.text));
    const missing = all.filter((k) => !own.has(k) && !there.has(k));
    if (missing.length === 0) continue;
    const key = keyOf(o.bytes ?? o.text);
    const stashed = missing.every((k) => k === key) ? await stash(store, o.text, o.bytes) : undefined;
    if (stashed?.ok) {
      if (stashed.created) backed.restashed++;
      continue;
    }
    copied ??= new Map(pins);
    copied.delete(o.id);
    backed.dropped++;
  }
  return backed;
}
