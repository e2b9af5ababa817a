/**
 * Line arithmetic over a code string: where each line starts, which line an offset is on, and where
 * a line's content ends (before its `\n`, and before a `\r` of a CRLF ending). Lines are what
 * split('\n') gives, so a final newline is followed by one empty last line. Offsets are JS string
 * indices, the unit web-tree-sitter reports for a string input.
 */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  get count(): number {
    return this.starts.length;
  }

  start(line: number): number {
    return this.starts[line] ?? this.text.length;
  }

  /** Index of the line's `\n`, or the text length for the last line. */
  end(line: number): number {
    const next = this.starts[line + 1];
    return next === undefined ? this.text.length : next - 1;
  }

  /** Where the line's content ends: before `\r\n` or `\n`. */
  contentEnd(line: number): number {
    const e = this.end(line);
    return e > this.start(line) && this.text.charCodeAt(e - 1) === 0x0d ? e - 1 : e;
  }

  /** The line an offset is on (an offset at a `\n` belongs to the line that newline ends). */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  content(line: number): string {
    return this.text.slice(this.start(line), this.contentEnd(line));
  }
}
