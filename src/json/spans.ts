/**
 * A strict JSON parser that keeps source positions. parseJsonSpans(src) accepts exactly what
 * JSON.parse accepts (and throws JsonSyntaxError with a position otherwise), and returns the value
 * tree where every node carries its source span [start, end). A writer can then splice new text into
 * the span of one string and leave every other byte of the input as it was (applyEdits).
 *
 * The parser is iterative (an explicit container stack), so nesting depth is bounded by memory, not
 * by the call stack. String bodies are found with sticky regexes and decoded by slicing (no escapes)
 * or by JSON.parse of the literal (escapes), so the per-character work runs natively; a 2.7 MB
 * request body parses in a few times JSON.parse's time.
 */

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

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function hexValue(c: number): number {
  if (c >= ZERO && c <= NINE) return c - ZERO;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

const SIMPLE_ESCAPES: Record<number, string> = {
  34: '"',
  92: '\\',
  47: '/',
  98: '\b',
  102: '\f',
  110: '\n',
  114: '\r',
  116: '\t',
};

/** A run of string characters that need no attention: no quote, backslash or control character. */
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
/** String characters up to the closing quote, escapes included (JSON.parse then checks them). */
const ESCAPED_RUN = /[^"\\\u0000-\u001f]*(?:\\[^\u0000-\u001f][^"\\\u0000-\u001f]*)*/y;

class Parser {
  pos = 0;
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
    while (p < src.length && isWs(src.charCodeAt(p))) p++;
    this.pos = p;
    return p < src.length ? src.charCodeAt(p) : -1;
  }

  /** At an opening quote: returns the decoded string and leaves pos after the closing quote. */
  string(): string {
    const { src } = this;
    const start = this.pos;
    // V8's regex engine skips an ordinary run much faster than a charCodeAt loop.
    PLAIN_RUN.lastIndex = start + 1;
    PLAIN_RUN.test(src);
    let end = PLAIN_RUN.lastIndex;
    let c = src.charCodeAt(end);
    if (c === QUOTE) {
      this.pos = end + 1;
      return src.slice(start + 1, end);
    }
    if (c === BACKSLASH) {
      // Tool outputs are full of \n: decoding them natively beats any loop in JS, cold or warm.
      ESCAPED_RUN.lastIndex = end;
      ESCAPED_RUN.test(src);
      end = ESCAPED_RUN.lastIndex;
      c = src.charCodeAt(end);
      if (c === QUOTE) {
        try {
          const value = JSON.parse(src.slice(start, end + 1)) as string;
          this.pos = end + 1;
          return value;
        } catch {
          // A bad escape: decodeString reports where.
        }
      }
    }
    return this.decodeString();
  }

  /** The exact, slow string decoder; string() falls back to it only to locate a syntax error. */
  decodeString(): string {
    const { src } = this;
    const len = src.length;
    let i = this.pos + 1;
    let chunkStart = i;
    let out = '';
    for (;;) {
      PLAIN_RUN.lastIndex = i;
      PLAIN_RUN.test(src);
      i = PLAIN_RUN.lastIndex;
      if (i >= len) this.fail('Unterminated string in JSON', len);
      const c = src.charCodeAt(i);
      if (c === QUOTE) {
        this.pos = i + 1;
        return out + src.slice(chunkStart, i);
      }
      if (c === BACKSLASH) {
        out += src.slice(chunkStart, i);
        const e = i + 1 < len ? src.charCodeAt(i + 1) : -1;
        const simple = SIMPLE_ESCAPES[e];
        if (simple !== undefined) {
          out += simple;
          i += 2;
        } else if (e === 0x75) {
          let code = 0;
          for (let k = 2; k < 6; k++) {
            const h = i + k < len ? hexValue(src.charCodeAt(i + k)) : -1;
            if (h < 0) this.fail('Bad Unicode escape in JSON', i);
            code = code * 16 + h;
          }
          out += String.fromCharCode(code);
          i += 6;
        } else {
          if (e < 0) this.fail('Unterminated string in JSON', len);
          this.fail('Bad escaped character in JSON', i + 1);
        }
        chunkStart = i;
        continue;
      }
      // PLAIN_RUN stops only at a quote, a backslash or a control character.
      this.fail('Bad control character in string literal in JSON', i);
    }
  }

  number(): JsonNumber {
    const { src } = this;
    const start = this.pos;
    let i = start;
    const negative = src.charCodeAt(i) === MINUS;
    if (negative) i++;
    const first = src.charCodeAt(i);
    let int = 0;
    if (first === ZERO) i++;
    else if (isDigit(first)) {
      for (let c = first; isDigit(c); c = src.charCodeAt(++i)) int = int * 10 + (c - ZERO);
    } else {
      this.pos = i;
      if (i >= src.length) this.unexpected();
      this.fail('No number after minus sign in JSON', i);
    }
    const intEnd = i;
    if (src.charCodeAt(i) === DOT) {
      i++;
      if (!isDigit(src.charCodeAt(i))) {
        this.pos = i;
        if (i >= src.length) this.unexpected();
        this.fail('Unterminated fractional number in JSON', i);
      }
      while (isDigit(src.charCodeAt(i))) i++;
    }
    const e = src.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = src.charCodeAt(i);
      if (sign === PLUS || sign === MINUS) i++;
      if (!isDigit(src.charCodeAt(i))) {
        this.pos = i;
        if (i >= src.length) this.unexpected();
        this.fail('Exponent part is missing a number in JSON', i);
      }
      while (isDigit(src.charCodeAt(i))) i++;
    }
    this.pos = i;
    // Short integers are exact in a double: skip the slice and the decimal conversion.
    const exact = i - start <= 15 && i === intEnd;
    const value = exact ? (negative ? -int : int) : Number(src.slice(start, i));
    return { type: 'number', start, end: i, value };
  }

  literal(word: string, node: JsonBoolean | JsonNull): JsonNode {
    if (!this.src.startsWith(word, this.pos)) {
      // Point at the first character that differs, as JSON.parse does.
      let k = 0;
      while (k < word.length && this.src.charCodeAt(this.pos + k) === word.charCodeAt(k)) k++;
      this.pos += k;
      this.unexpected();
    }
    this.pos += word.length;
    return node;
  }

  /** At a non-container value's first character: parses it; pos ends after it. */
  scalar(c: number): JsonNode {
    const start = this.pos;
    if (c === QUOTE) {
      const value = this.string();
      return { type: 'string', start, end: this.pos, value };
    }
    if (c === MINUS || isDigit(c)) return this.number();
    if (c === 0x74) return this.literal('true', { type: 'boolean', start, end: start + 4, value: true });
    if (c === 0x66) return this.literal('false', { type: 'boolean', start, end: start + 5, value: false });
    if (c === 0x6e) return this.literal('null', { type: 'null', start, end: start + 4, value: null });
    return this.unexpected();
  }

  /** After `{` or `,` inside an object: reads `"key" :` and leaves pos at the value. */
  key(keys: string[], keyStarts: number[]): void {
    const c = this.skipWs();
    if (c !== QUOTE) {
      if (c < 0) this.unexpected();
      this.fail(`Expected double-quoted property name in JSON`);
    }
    keyStarts.push(this.pos);
    keys.push(this.string());
    if (this.skipWs() !== COLON) {
      if (this.pos >= this.src.length) this.unexpected();
      this.fail(`Expected ':' after property name in JSON`);
    }
    this.pos++;
  }

  parse(): JsonNode {
    const stack: (JsonObject | JsonArray)[] = [];
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
          parent.members.push({ key: keys.pop()!, keyStart: keyStarts.pop()!, value });
          if (next === COMMA) {
            this.pos++;
            this.key(keys, keyStarts);
            break;
          }
          if (next !== CLOSE_BRACE) {
            if (next < 0) this.unexpected();
            this.fail(`Expected ',' or '}' after property value in JSON`);
          }
        } else {
          parent.items.push(value);
          if (next === COMMA) {
            this.pos++;
            break;
          }
          if (next !== CLOSE_BRACKET) {
            if (next < 0) this.unexpected();
            this.fail(`Expected ',' or ']' after array element in JSON`);
          }
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
  return parts.join('');
}
