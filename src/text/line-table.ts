/**
 * The lines of a text by offset: one Uint32Array of where each line starts, a line sliced only when
 * asked for. A text of a million short lines then costs 4 bytes a line instead of a string and a
 * pointer each (4 MB of 3-digit lines took fold 45 MB over the text itself). Lines are what
 * split('\n') gives once one final newline is dropped; a "\r" before a "\n" belongs to the line
 * ending, and the text's first line ending (when it has more than one line) is its `nl`.
 */
export class LineTable {
  readonly length: number;
  readonly nl: string;
  readonly finalNewline: boolean;
  /** starts[i] is where line i starts; starts[length] is one past the last line's end. */
  private readonly starts: Uint32Array;

  constructor(private readonly text: string) {
    this.finalNewline = text.endsWith('\n');
    const end = this.finalNewline ? text.length - 1 : text.length;
    let n = 1;
    for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
    const starts = new Uint32Array(n + 1);
    for (let k = 1, i = text.indexOf('\n'); k < n; i = text.indexOf('\n', i + 1)) starts[k++] = i + 1;
    starts[n] = end + 1;
    this.starts = starts;
    this.length = n;
    this.nl = n > 1 && this.endsWithCr(0) ? '\r\n' : '\n';
  }

  /** Line i without its ending (a last line with no newline after it keeps a final "\r"). */
  at(i: number): string {
    const s = this.starts[i]!;
    const e = this.starts[i + 1]! - 1;
    const cr = (i < this.length - 1 || this.finalNewline) && this.endsWithCr(i);
    return this.text.slice(s, cr ? e - 1 : e);
  }

  private endsWithCr(i: number): boolean {
    const e = this.starts[i + 1]! - 1;
    return e > this.starts[i]! && this.text.charCodeAt(e - 1) === 0x0d;
  }
}
