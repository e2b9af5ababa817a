/**
 * A tally's state as plain data and back, for the stats checkpoint (read-cache.ts): the tallies
 * (aggregate.ts and the ones it holds) keep their state in own fields of maps, arrays, rows and
 * numbers, which v8.serialize copies with shared rows kept shared (a recall key's row is one of the
 * recall rows, a component row is in the map and in the list). So a tally's state is its own fields,
 * functions left out, and a field holding another tally (a class instance) is that tally's state;
 * restoring writes the fields back into a fresh tally of the same class, keeping its methods.
 * A tally must therefore keep class instances only in its own fields, never inside a map or a row.
 * A tally whose state is large may pack it itself: a nested tally with state() and restore(state)
 * methods is kept by those (recall.ts packs its keys into one typed array).
 */

type Fields = Record<string, unknown>;

interface Packs {
  state(): unknown;
  restore(state: unknown): void;
}

const PLAIN = new Set<unknown>([Object.prototype, Array.prototype, Map.prototype, Set.prototype, null]);

function isTally(v: unknown): v is object {
  return typeof v === 'object' && v !== null && !PLAIN.has(Object.getPrototypeOf(v));
}

function packs(v: object): v is Packs {
  return (
    typeof (v as Partial<Packs>).state === 'function' && typeof (v as Partial<Packs>).restore === 'function'
  );
}

export function tallyState(tally: object): Fields {
  const out: Fields = {};
  for (const [k, v] of Object.entries(tally)) {
    if (typeof v === 'function') continue;
    out[k] = !isTally(v) ? v : packs(v) ? v.state() : tallyState(v);
  }
  return out;
}

export function restoreTally(tally: object, state: Fields): void {
  const t = tally as Fields;
  for (const [k, v] of Object.entries(state)) {
    const current = t[k];
    if (isTally(current)) {
      if (packs(current)) current.restore(v);
      else restoreTally(current, v as Fields);
    } else t[k] = v;
  }
}

/** The names of a tally's fields, nested: a checkpoint made by a tally of another shape is not used. */
export function tallyShape(tally: object): string {
  return Object.entries(tally)
    .filter(([, v]) => typeof v !== 'function')
    .map(([k, v]) => (isTally(v) && !packs(v) ? `${k}{${tallyShape(v)}}` : k))
    .join(',');
}
