/**
 * A unified diff of two small texts (settings files), for `cg init --dry-run`: `--- a/x` / `+++ b/x`
 * headers and `@@ -l,n +l,n @@` hunks with three lines of context, as `diff -u` prints them. Lines
 * are matched by a longest-common-subsequence table, which is plenty for files of a few hundred
 * lines; larger inputs are shown as one hunk replacing everything.
 */

const CONTEXT = 3;
const MAX_CELLS = 4_000_000;

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

function lines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

function script(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) {
    return [
      ...a.map((line, i) => ({ kind: '-' as const, line, a: i, b: 0 })),
      ...b.map((line, j) => ({ kind: '+' as const, line, a: n, b: j })),
    ];
  }
  // lcs[i][j]: length of the LCS of a[i..] and b[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: ' ', line: a[i++]!, a: i - 1, b: j++ });
    // Deletions before insertions, as diff -u prints a changed line.
    else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!))
      ops.push({ kind: '-', line: a[i++]!, a: i - 1, b: j });
    else ops.push({ kind: '+', line: b[j++]!, a: i, b: j - 1 });
  }
  return ops;
}

/** The unified diff from `before` to `after`, or '' when they are the same. */
export function unifiedDiff(before: string, after: string, nameA: string, nameB: string): string {
  if (before === after) return '';
  const ops = script(lines(before), lines(after));
  const out = [`--- ${nameA}`, `+++ ${nameB}`];
  let k = 0;
  while (k < ops.length) {
    if (ops[k]!.kind === ' ') {
      k++;
      continue;
    }
    // A hunk: from CONTEXT lines before this change to CONTEXT lines after the last change that is
    // no more than 2*CONTEXT unchanged lines from the previous one.
    const start = Math.max(0, k - CONTEXT);
    let end = k;
    let lastChange = k;
    while (end < ops.length && end - lastChange <= 2 * CONTEXT) {
      if (ops[end]!.kind !== ' ') lastChange = end;
      end++;
    }
    end = Math.min(ops.length, lastChange + CONTEXT + 1);
    const hunk = ops.slice(start, end);
    const aLen = hunk.filter((o) => o.kind !== '+').length;
    const bLen = hunk.filter((o) => o.kind !== '-').length;
    const first = hunk[0]!;
    const aStart = aLen === 0 ? first.a : first.a + 1;
    const bStart = bLen === 0 ? first.b : first.b + 1;
    out.push(`@@ -${aStart},${aLen} +${bStart},${bLen} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    k = end;
  }
  return `${out.join('\n')}\n`;
}
