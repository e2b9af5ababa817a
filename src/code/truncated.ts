/**
 * Partial reads (`head -n 300 x.rs`, `sed -n '1,200p' x.go`, a Read with a limit) cut a file in the
 * middle of a function, and a brace language then often fails to parse at all. closersFor gives the
 * brackets that would close what is still open at the end, so the caller can parse code + closers:
 * the unfinished function then reads as a function whose body runs to the end of the text.
 *
 * A plain scan, not a parser: it skips string and character literals (the language's quotes) and
 * comments (//, /* … *\/) well enough for that guess, and the caller keeps the result only if the
 * parse then succeeds.
 */
const CLOSE: Record<string, string> = { '{': '}', '(': ')', '[': ']' };

export function closersFor(code: string, quotes = '"\'', lineComment: readonly string[] = ['//']): string {
  const open: string[] = [];
  let comment = '';
  let i = 0;
  const n = code.length;
  while (i < n) {
    const c = code[i]!;
    if (c === '/' && code[i + 1] === '*') {
      const end = code.indexOf('*/', i + 2);
      if (end === -1) {
        // Cut off inside a doc comment: close it first.
        comment = ' */';
        break;
      }
      i = end + 2;
      continue;
    }
    if (lineComment.some((p) => code.startsWith(p, i))) {
      const nl = code.indexOf('\n', i);
      if (nl === -1) break;
      i = nl + 1;
      continue;
    }
    if (quotes.includes(c)) {
      let j = i + 1;
      while (j < n && code[j] !== c) {
        // Only a template literal spans lines: a stray quote ends at its line's end.
        if (c !== '`' && code[j] === '\n') break;
        j += code[j] === '\\' ? 2 : 1;
      }
      i = j + 1;
      continue;
    }
    if (c in CLOSE) open.push(CLOSE[c]!);
    else if (c === '}' || c === ')' || c === ']') {
      if (open[open.length - 1] !== c) return '';
      open.pop();
    }
    i++;
  }
  return open.length === 0 ? '' : `${comment}\n${open.reverse().join('')}\n`;
}
