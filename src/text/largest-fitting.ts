/**
 * largestFitting: the largest n in lo..hi for which fits(n) holds, found by bisection. fits is taken
 * to hold up to some n and not above it (a budget that more lines, directories or files only
 * outgrow); lo when none above lo does. Shared by the DSL's run caps and the path tree's listing.
 */
export function largestFitting(lo: number, hi: number, fits: (n: number) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
