/**
 * "Did you mean …?" for a mistyped name — one rule for every name cg knows (config keys, commands,
 * hosts, presets, components, filters, actions): the known names within edit distance 2 of the
 * typo that leave more than half of the longer word unchanged, the nearest first (ties go to the
 * earlier name, so the suggestion is stable), or none when nothing is that close — a wild guess
 * would mislead more than it helps. The distance counts a swap of two neighbours as one edit
 * (`ttl_dyas` is one edit from `ttl_days`), as commander's own suggestions do.
 */

const MAX_DISTANCE = 2;

/** Every known name at the smallest distance in reach, in the order given; [] when none is. */
export function nearestNames(word: string, known: readonly string[]): string[] {
  let best: string[] = [];
  let bestDistance = MAX_DISTANCE + 1;
  for (const name of known) {
    const d = editDistance(word, name);
    if (d * 2 >= Math.max(word.length, name.length)) continue;
    if (d < bestDistance) {
      bestDistance = d;
      best = [name];
    } else if (d === bestDistance && !best.includes(name)) best.push(name);
  }
  return best;
}

export function nearest(word: string, known: readonly string[]): string | undefined {
  return nearestNames(word, known)[0];
}

/** ` (did you mean X?)` or ` (did you mean X or Y?)` for a message, or '' when nothing is near. */
export function didYouMean(word: string, known: readonly string[]): string {
  const names = nearestNames(word, known);
  return names.length === 0 ? '' : ` (did you mean ${names.join(' or ')}?)`;
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
