/**
 * The items of a JSON array and the leaves of each, in one pass over text that is already known to
 * be valid JSON (scanJson said so): no tree is built, so a 56 MB array of records costs what its
 * scalars cost, not millions of nodes. A leaf is a scalar with the name of the member it sits in —
 * its own key, or for an array element the key of its array ('' at the item's top) — and its value
 * as JSON.parse gives it. An item whose objects repeat a key is reported as such: JSON.parse keeps
 * only the last of them, and a caller that wants JSON.parse's view looks at that item again.
 */
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  isJsonSpace,
  OPEN_BRACE,
  OPEN_BRACKET,
  plainRun,
  QUOTE,
  scanNumber,
  scanString,
} from './lexical.js';

export type Scalar = string | number | boolean | null;

export interface ItemVisitor {
  /** A scalar of the current item, with its member's name. */
  leaf(key: string, value: Scalar): void;
  /** The item [start, end) ends; its leaves came before. `repeatsKey`: one of its objects has a key twice. */
  item(start: number, end: number, repeatsKey: boolean): void;
}

/** An open container inside an item: its key, and an object's names so far. */
interface Frame {
  key: string;
  names: string[] | Set<string> | undefined;
}

/** Names an object keeps in an array before a Set: most objects have a handful. */
const FEW_NAMES = 16;

/** Adds name to an object's names; whether it was there already. */
function named(frame: Frame, name: string): boolean {
  const names = frame.names!;
  if (names instanceof Set) {
    if (names.has(name)) return true;
    names.add(name);
    return false;
  }
  if (names.includes(name)) return true;
  names.push(name);
  if (names.length > FEW_NAMES) frame.names = new Set(names);
  return false;
}

/** The number whose text is s[i, end), as JSON.parse reads it (short integers without a slice). */
function numberAt(s: string, i: number, end: number): number {
  const negative = s.charCodeAt(i) === 0x2d;
  let int = 0;
  let k = negative ? i + 1 : i;
  for (; k < end; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x30 || c > 0x39) break;
    int = int * 10 + (c - 0x30);
  }
  if (k === end && end - i <= 15) return negative ? -int : int;
  return Number(s.slice(i, end));
}

function skip(s: string, i: number): number {
  while (isJsonSpace(s.charCodeAt(i))) i++;
  return i;
}

/** The string whose opening quote is at i, decoded, and the index past it. */
function stringAt(s: string, i: number): [string, number] {
  const stop = plainRun(s, i + 1);
  if (s.charCodeAt(stop) === QUOTE) return [s.slice(i + 1, stop), stop + 1];
  const end = s.charCodeAt(stop) === BACKSLASH ? scanString(s, i) : stop + 1;
  return [JSON.parse(s.slice(i, end)) as string, end];
}

/**
 * Visits every item of the valid JSON array whose `[` is at `open`, and each item's leaves;
 * returns the index past the array's `]`.
 */
export function visitItems(s: string, open: number, visit: ItemVisitor): number {
  let i = skip(s, open + 1);
  if (s.charCodeAt(i) === CLOSE_BRACKET) return i + 1;
  const stack: Frame[] = [];
  for (;;) {
    const start = i;
    let repeats = false;
    let key = '';
    // One item: values until the stack empties again.
    for (;;) {
      const c = s.charCodeAt(i);
      let scalar = true;
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        i = skip(s, i + 1);
        const close = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
        if (s.charCodeAt(i) === close) i++;
        else {
          const frame: Frame = { key, names: c === OPEN_BRACE ? [] : undefined };
          stack.push(frame);
          if (frame.names) {
            [key, i] = stringAt(s, i);
            repeats = named(frame, key) || repeats;
            i = skip(s, skip(s, i) + 1); // past the colon
          }
          continue;
        }
        scalar = false;
      }
      if (scalar) {
        let value: Scalar;
        if (c === QUOTE) [value, i] = stringAt(s, i);
        else if (c === 0x74 || c === 0x66 || c === 0x6e) {
          value = c === 0x74 ? true : c === 0x66 ? false : null;
          i += c === 0x66 ? 5 : 4;
        } else {
          const end = scanNumber(s, i);
          value = numberAt(s, i, end);
          i = end;
        }
        visit.leaf(key, value);
      }
      // After a value: close what ends here, or move to the next member or element.
      let next = false;
      while (stack.length > 0) {
        i = skip(s, i);
        const frame = stack[stack.length - 1]!;
        if (s.charCodeAt(i) === COMMA) {
          i = skip(s, i + 1);
          if (frame.names) {
            [key, i] = stringAt(s, i);
            repeats = named(frame, key) || repeats;
            i = skip(s, skip(s, i) + 1);
          } else key = frame.key;
          next = true;
          break;
        }
        i++; // the closing bracket or brace
        stack.pop();
        key = frame.key;
      }
      if (!next) break;
    }
    visit.item(start, i, repeats);
    i = skip(s, i);
    if (s.charCodeAt(i) !== COMMA) return i + 1;
    i = skip(s, i + 1);
  }
}
