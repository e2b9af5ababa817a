/**
 * Tool outputs and message views carried from one turn of a conversation to the next without
 * their texts: each knows where its text lies in the request body (UTF-8 byte offsets) and reads it
 * from the body of the turn being decided only when something asks (lazy). A replayed output is
 * mostly never read at all — what was sent for it is in the session record — so a turn costs what
 * its new messages cost, not what the whole conversation does.
 *
 * What is kept between turns holds no string of any earlier body: ids, commands and view texts
 * are copied flat (detach), and a text read during a turn is dropped when the turn ends
 * (BodySource.release), so a long session keeps no earlier turn's body alive.
 */
import type { MessageView, ToolOutput } from '../../input/transcript.js';

/** The body texts are read from: the current turn's bytes, and what was read from them this turn. */
export class BodySource {
  private read: { clear(): void }[] = [];
  constructor(public bytes: Buffer) {}

  /** Remembers a text read this turn, to be dropped at its end. */
  hold(cache: { clear(): void }): void {
    this.read.push(cache);
  }

  /** Ends the turn: every text read from the body is dropped; the next turn reads from `next`. */
  release(next: Buffer): void {
    for (const c of this.read) c.clear();
    this.read = [];
    this.bytes = next;
  }
}

/** The JSON string literal at bytes [start, end) (quotes included), decoded as the reader decodes it. */
export function jsonStringAt(bytes: Buffer, start: number, end: number): string {
  const inner = bytes.indexOf(0x5c, start + 1);
  // No backslash inside: the bytes between the quotes are the text itself.
  if (inner < 0 || inner >= end - 1) return bytes.toString('utf8', start + 1, end - 1);
  return JSON.parse(bytes.toString('utf8', start, end)) as string;
}

/** What a carried output knows of itself apart from its text. */
export interface OutputFacts {
  id: string;
  rewritable: boolean;
  isError: boolean;
  messageIndex: number;
  toolName?: string;
  command?: string;
  path?: string;
}

/** A tool output of an earlier turn whose text is read from the current body only when asked. */
export class CarriedOutput implements ToolOutput {
  readonly id: string;
  readonly rewritable: boolean;
  readonly isError: boolean;
  readonly messageIndex: number;
  declare readonly toolName?: string;
  declare readonly command?: string;
  declare readonly path?: string;
  #text: string | undefined;

  constructor(
    facts: OutputFacts,
    /** keyOf of its original (the session's record is keyed by it). */
    readonly hash: string,
    /** Its JSON string's bytes in the body. */
    readonly start: number,
    readonly end: number,
    private readonly source: BodySource,
  ) {
    this.id = facts.id;
    this.rewritable = facts.rewritable;
    this.isError = facts.isError;
    this.messageIndex = facts.messageIndex;
    // Absent, not undefined, where the reader had nothing (the pipeline tests `!== undefined`).
    if (facts.toolName !== undefined)
      Object.defineProperty(this, 'toolName', { value: facts.toolName, enumerable: true });
    if (facts.command !== undefined)
      Object.defineProperty(this, 'command', { value: facts.command, enumerable: true });
    if (facts.path !== undefined)
      Object.defineProperty(this, 'path', { value: facts.path, enumerable: true });
  }

  get text(): string {
    if (this.#text === undefined) {
      this.#text = jsonStringAt(this.source.bytes, this.start, this.end);
      this.source.hold(this);
    }
    return this.#text;
  }

  clear(): void {
    this.#text = undefined;
  }
}

type LastBlock = NonNullable<MessageView['lastBlock']>;

/** Every lastBlock a carried view holds, one object per kind: a long session has 40,000 views. */
const lastBlocks = new Map<string, Readonly<LastBlock>>();

function sharedLastBlock(b: LastBlock): LastBlock {
  const key = `${b.type}\u0000${b.cacheControl ? 1 : 0}${b.empty ? 1 : 0}`;
  let shared = lastBlocks.get(key);
  if (!shared) {
    shared = Object.freeze({ type: detachShort(b.type), cacheControl: b.cacheControl, empty: b.empty });
    lastBlocks.set(key, shared);
  }
  return shared as LastBlock;
}

/** A block type as its own string (a slice of the body would keep the body alive). */
function detachShort(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

/**
 * A message view of an earlier turn. A message holding no tool output keeps its text (short, and
 * read every turn for the query); a tool result whose text is its one output's reads it through
 * that output; any other holding outputs reads it from the body when asked (`read`).
 */
export class CarriedView implements MessageView {
  readonly role: string;
  declare readonly lastBlock?: MessageView['lastBlock'];
  declare readonly boundToPrevious?: true;
  declare readonly startsWithThinking?: true;
  #text: string | undefined;

  constructor(
    view: MessageView,
    private readonly kept: string | undefined,
    private readonly read: (() => string) | CarriedOutput | undefined,
    private readonly source: BodySource,
  ) {
    this.role = view.role;
    if (view.lastBlock)
      Object.defineProperty(this, 'lastBlock', { value: sharedLastBlock(view.lastBlock), enumerable: true });
    if (view.boundToPrevious)
      Object.defineProperty(this, 'boundToPrevious', { value: true, enumerable: true });
    if (view.startsWithThinking)
      Object.defineProperty(this, 'startsWithThinking', { value: true, enumerable: true });
  }

  get text(): string {
    if (this.kept !== undefined) return this.kept;
    // The output holds its text for the turn (and lets it go at its end).
    if (this.read instanceof CarriedOutput) return this.read.text;
    if (this.#text === undefined) {
      this.#text = (this.read as () => string)();
      this.source.hold(this);
    }
    return this.#text;
  }

  clear(): void {
    this.#text = undefined;
  }
}
