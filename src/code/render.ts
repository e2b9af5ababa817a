/**
 * Applies cuts to code and says, for every output line, which source line it stands for. A cut
 * replaces [start, end) by a text without newlines, so each output line begins with the content of
 * exactly one source line: the line its first original character comes from, or, when it begins
 * with a cut's text, the line the cut starts on. That is what lets a line-numbered file read keep
 * each kept line's own number, and lines that vanish take their numbers with them.
 */
import type { LineIndex } from './lines.js';

export interface Cut {
  start: number;
  end: number;
  /** Replacement; never contains a newline. */
  text: string;
}

export interface OutputLine {
  /** Source line (0-based) this output line stands for. */
  line: number;
  text: string;
}

/**
 * The code with the cuts applied, as the lines split('\n') of the result would give. Cuts must be
 * sorted and must not overlap.
 */
export function render(lines: LineIndex, cuts: readonly Cut[]): OutputLine[] {
  const code = lines.text;
  const out: OutputLine[] = [];
  let line: number | undefined;
  let text = '';

  const copy = (from: number, to: number) => {
    let i = from;
    while (i < to) {
      const nl = code.indexOf('\n', i);
      const stop = nl === -1 || nl >= to ? to : nl;
      if (stop > i) {
        line ??= lines.lineOf(i);
        text += code.slice(i, stop);
      }
      if (stop === to) break;
      line ??= lines.lineOf(stop);
      out.push({ line, text });
      line = undefined;
      text = '';
      i = stop + 1;
    }
  };

  let pos = 0;
  for (const cut of cuts) {
    copy(pos, cut.start);
    if (cut.text.length > 0) {
      line ??= lines.lineOf(cut.start);
      text += cut.text;
    }
    pos = Math.max(pos, cut.end);
  }
  copy(pos, code.length);
  out.push({ line: line ?? lines.count - 1, text });
  return out;
}
