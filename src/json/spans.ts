/**
 * A strict JSON parser that keeps source positions. parseJsonSpans(src) accepts exactly what
 * JSON.parse accepts (and throws JsonSyntaxError with a position otherwise), and returns the value
 * tree where every node carries its source span [start, end). A writer can then splice new text into
 * the span of one string and leave every other byte of the input as it was (applyEdits).
 *
 * The parser is iterative (an explicit container stack), so nesting depth is bounded by memory, not
 * by the call stack. Its tokens come from lexical.ts (strings found with sticky regexes and decoded
 * by slicing, or by JSON.parse of the literal when it has escapes), so the per-character work runs
 * natively; a 2.7 MB request body parses in a few times JSON.parse's time.
 */
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  finishString,
  isDigit,
  isJsonSpace,
  MINUS,
  type NumberProblem,
  numberProblem,
  OPEN_BRACE,
  OPEN_BRACKET,
  plainRun,
  QUOTE,
  type StringProblem,
  scanLiteral,
  scanNumber,
  stringFailure,
} from './lexical.js';

/** A source span: UTF-16 offsets [start, end) into the parsed text. */
export interface Span {
  start: number;
  end: number;
}

export interface JsonObject extends Span {
  type: 'object';
  /** In source order; duplicate keys are kept (the last one wins, as in JSON.parse). */
  members: JsonMember[];
}

export interface JsonMember {
  key: string;
  /** Offset of the key's opening quote. */
  keyStart: number;
  value: JsonNode;
}

export interface JsonArray extends Span {
  type: 'array';
  items: JsonNode[];
}

export interface JsonString extends Span {
  type: 'string';
  value: string;
}

export interface JsonNumber extends Span {
  type: 'number';
  value: number;
}

export interface JsonBoolean extends Span {
  type: 'boolean';
  value: boolean;
}

export interface JsonNull extends Span {
  type: 'null';
  value: null;
}

export type JsonNode = JsonObject | JsonArray | JsonString | JsonNumber | JsonBoolean | JsonNull;

/** A JSON syntax error; `position` is the UTF-16 offset where parsing stopped. */
export class JsonSyntaxError extends SyntaxError {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

const STRING_ERRORS: Record<StringProblem, string> = {
  unterminated: 'Unterminated string in JSON',
  control: 'Bad control character in string literal in JSON',
  escape: 'Bad escaped character in JSON',
  unicode: 'Bad Unicode escape in JSON',
};

const NUMBER_ERRORS: Record<NumberProblem, string> = {
  minus: 'No number after minus sign in JSON',
  fraction: 'Unterminated fractional number in JSON',
  exponent: 'Exponent part is missing a number in JSON',
};

/** Distinct keys a parse keeps one copy of; past these (a map keyed by ids), keys are copies. */
const MAX_INTERNED_KEYS = 4096;

class Parser {
  pos = 0;
  private readonly keyNames = new Map<string, string>();
  constructor(private readonly src: string) {}

  fail(message: string, at = this.pos): never {
    throw new JsonSyntaxError(`${message} at position ${at}`, at);
  }

  unexpected(): never {
    const { src, pos } = this;
    if (pos >= src.length) throw new JsonSyntaxError('Unexpected end of JSON input', pos);
    this.fail(`Unexpected token ${JSON.stringify(src[pos])}`);
  }

  skipWs(): number {
    const { src } = this;
    let p = this.pos;
    while (p < src.length && isJsonSpace(src.charCodeAt(p))) p++;
    this.pos = p;
    return p < src.length ? src.charCodeAt(p) : -1;
  }

  /**
   * One string per distinct key: a body repeats a handful of keys ("type", "role", "content"…)
   * hundreds of thousands of times, each a fresh copy of a few characters otherwise.
   */
  interned(key: string): string {
    const known = this.keyNames.get(key);
    if (known !== undefined) return known;
    if (this.keyNames.size < MAX_INTERNED_KEYS) this.keyNames.set(key, key);
    return key;
  }

  /** At an opening quote: returns the decoded string and leaves pos after the closing quote. */
  string(): string {
    const { src } = this;
    const start = this.pos;
    const stop = plainRun(src, start + 1);
    if (src.charCodeAt(stop) === QUOTE) {
      this.pos = stop + 1;
      return src.slice(start + 1, stop);
    }
    const end = finishString(src, start, stop);
    if (end < 0) {
      const { at, problem } = stringFailure(src, start);
      this.fail(STRING_ERRORS[problem], at);
    }
    this.pos = end;
    // Tool outputs are full of \n: decoding them natively beats any loop in JS, cold or warm.
    return JSON.parse(src.slice(start, end)) as string;
  }

  number(): JsonNumber {
    const { src } = this;
    const start = this.pos;
    const end = scanNumber(src, start);
    if (end < 0) {
      this.pos = ~end;
      if (this.pos >= src.length) this.unexpected();
      this.fail(NUMBER_ERRORS[numberProblem(src, start, this.pos)]);
    }
    this.pos = end;
    // Short integers are exact in a double: skip the slice and the decimal conversion.
    const negative = src.charCodeAt(start) === MINUS;
    let int = 0;
    let i = negative ? start + 1 : start;
    for (let c = src.charCodeAt(i); i < end && isDigit(c); c = src.charCodeAt(++i))
      int = int * 10 + (c - 0x30);
    const exact = end - start <= 15 && i === end;
    const value = exact ? (negative ? -int : int) : Number(src.slice(start, end));
    return { type: 'number', start, end, value };
  }

  /** At a non-container value's first character: parses it; pos ends after it. */
  scalar(c: number): JsonNode {
    const start = this.pos;
    if (c === QUOTE) {
      const value = this.string();
      return { type: 'string', start, end: this.pos, value };
    }
    if (c === MINUS || isDigit(c)) return this.number();
    const end = scanLiteral(this.src, start);
    if (end < 0) {
      // Point at the first character that differs, as JSON.parse does.
      this.pos = ~end;
      this.unexpected();
    }
    this.pos = end;
    if (c === 0x6e) return { type: 'null', start, end, value: null };
    return { type: 'boolean', start, end, value: c === 0x74 };
  }

  /** After `{` or `,` inside an object: reads `"key" :` and leaves pos at the value. */
  key(keys: string[], keyStarts: number[]): void {
    const c = this.skipWs();
    if (c !== QUOTE) {
      if (c < 0) this.unexpected();
      this.fail(`Expected double-quoted property name in JSON`);
    }
    keyStarts.push(this.pos);
    keys.push(this.interned(this.string()));
    if (this.skipWs() !== COLON) {
      if (this.pos >= this.src.length) this.unexpected();
      this.fail(`Expected ':' after property name in JSON`);
    }
    this.pos++;
  }

  parse(): JsonNode {
    const stack: (JsonObject | JsonArray)[] = [];
    // The children of every open container, one shared stack each for members and items: a
    // container takes its own as one exact-sized array when it closes. Pushed one by one onto its
    // own array, each container's list grew to 17 slots and more (29 MB of a 24 MB session's tree).
    const members: JsonMember[] = [];
    const items: JsonNode[] = [];
    // Where each open container's children start on their stack, parallel to `stack`.
    const bases: number[] = [];
    // The pending key of each open object, parallel to the objects on the stack.
    const keys: string[] = [];
    const keyStarts: number[] = [];
    for (;;) {
      // Expecting a value.
      const c = this.skipWs();
      let value: JsonNode;
      if (c === OPEN_BRACE) {
        const node: JsonObject = { type: 'object', start: this.pos, end: -1, members: [] };
        this.pos++;
        if (this.skipWs() === CLOSE_BRACE) {
          this.pos++;
          node.end = this.pos;
          value = node;
        } else {
          stack.push(node);
          bases.push(members.length);
          this.key(keys, keyStarts);
          continue;
        }
      } else if (c === OPEN_BRACKET) {
        const node: JsonArray = { type: 'array', start: this.pos, end: -1, items: [] };
        this.pos++;
        if (this.skipWs() === CLOSE_BRACKET) {
          this.pos++;
          node.end = this.pos;
          value = node;
        } else {
          stack.push(node);
          bases.push(items.length);
          continue;
        }
      } else {
        value = this.scalar(c);
      }

      // A value is complete: attach it, then close every container that ends here.
      for (;;) {
        const parent = stack[stack.length - 1];
        if (parent === undefined) {
          if (this.skipWs() !== -1) this.fail('Unexpected non-whitespace character after JSON');
          return value;
        }
        const next = this.skipWs();
        if (parent.type === 'object') {
          members.push({ key: keys.pop()!, keyStart: keyStarts.pop()!, value });
          if (next === COMMA) {
            this.pos++;
            this.key(keys, keyStarts);
            break;
          }
          if (next !== CLOSE_BRACE) {
            if (next < 0) this.unexpected();
            this.fail(`Expected ',' or '}' after property value in JSON`);
          }
          const base = bases.pop()!;
          parent.members = members.slice(base);
          members.length = base;
        } else {
          items.push(value);
          if (next === COMMA) {
            this.pos++;
            break;
          }
          if (next !== CLOSE_BRACKET) {
            if (next < 0) this.unexpected();
            this.fail(`Expected ',' or ']' after array element in JSON`);
          }
          const base = bases.pop()!;
          parent.items = items.slice(base);
          items.length = base;
        }
        this.pos++;
        parent.end = this.pos;
        stack.pop();
        value = parent;
      }
    }
  }
}

/** Parses JSON text strictly, keeping the source span of every value. */
export function parseJsonSpans(src: string): JsonNode {
  return new Parser(src).parse();
}

/** The value of the last member named key (JSON.parse semantics for duplicate keys). */
export function member(node: JsonNode | undefined, key: string): JsonNode | undefined {
  if (node?.type !== 'object') return undefined;
  const ms = node.members;
  for (let i = ms.length - 1; i >= 0; i--) if (ms[i]!.key === key) return ms[i]!.value;
  return undefined;
}

/** The string value of a string node, else undefined. */
export function stringOf(node: JsonNode | undefined): string | undefined {
  return node?.type === 'string' ? node.value : undefined;
}

/** The plain JavaScript value of a node, equal to what JSON.parse returns for its source span. */
export function toValue(root: JsonNode): unknown {
  const make = (n: JsonNode): unknown =>
    n.type === 'object' ? {} : n.type === 'array' ? new Array<unknown>(n.items.length) : n.value;
  const rootValue = make(root);
  // Iterative, like the parser: deep input must not overflow the call stack here either.
  const work: [JsonObject | JsonArray, unknown][] = [];
  if (root.type === 'object' || root.type === 'array') work.push([root, rootValue]);
  for (let job = work.pop(); job !== undefined; job = work.pop()) {
    const [node, target] = job;
    if (node.type === 'object') {
      const obj = target as Record<string, unknown>;
      for (const m of node.members) {
        const v = make(m.value);
        // An own "__proto__" property, as JSON.parse creates, rather than a prototype change.
        if (m.key === '__proto__') {
          Object.defineProperty(obj, m.key, {
            value: v,
            writable: true,
            enumerable: true,
            configurable: true,
          });
        } else {
          obj[m.key] = v;
        }
        if (m.value.type === 'object' || m.value.type === 'array') work.push([m.value, v]);
      }
    } else {
      const arr = target as unknown[];
      node.items.forEach((item, i) => {
        const v = make(item);
        arr[i] = v;
        if (item.type === 'object' || item.type === 'array') work.push([item, v]);
      });
    }
  }
  return rootValue;
}

export interface Edit extends Span {
  text: string;
}

/**
 * Replaces each [start, end) of src with its text. Edits may come in any order but must not
 * overlap; insertions at the same position keep their given order.
 */
export function applyEdits(src: string, edits: readonly Edit[]): string {
  if (edits.length === 0) return src;
  return editedParts(src, edits).join('');
}

/**
 * applyEdits's result as the pieces it joins, in order: slices of src (no copies) and the edits'
 * texts, for a writer that writes them out one after another instead of joining a copy the size
 * of the whole (a 60 MB request body).
 */
export function editedParts(src: string, edits: readonly Edit[]): string[] {
  if (edits.length === 0) return [src];
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  const parts: string[] = [];
  let at = 0;
  for (const e of sorted) {
    const inside = Number.isInteger(e.start) && Number.isInteger(e.end) && e.start >= 0;
    if (!(inside && e.start <= e.end && e.end <= src.length)) {
      throw new RangeError(`edit [${e.start}, ${e.end}) is outside the source (length ${src.length})`);
    }
    if (e.start < at) throw new RangeError(`edit [${e.start}, ${e.end}) overlaps the previous edit`);
    parts.push(src.slice(at, e.start), e.text);
    at = e.end;
  }
  parts.push(src.slice(at));
  return parts;
}
