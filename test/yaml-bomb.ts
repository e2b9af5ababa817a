/**
 * A "billion laughs" YAML document: nine lines whose aliases, expanded, would be 10^9 scalars.
 * A reader must refuse it by alias count before it expands.
 */
export function aliasBombLines(): string[] {
  const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 9; i++) {
    const [prev, name] = [String.fromCharCode(96 + i), String.fromCharCode(97 + i)];
    lines.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
  }
  return lines;
}
