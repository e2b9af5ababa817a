/**
 * Whether a text has more than n lines (lines as split('\n') gives them once one final newline is
 * dropped), counted by indexOf and no further than n + 1: the cheap size gate for work that holds
 * something per line.
 */
export function linesAbove(text: string, n: number): boolean {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < text.length - 1; i = text.indexOf('\n', i + 1))
    if (++lines > n) return true;
  return false;
}
