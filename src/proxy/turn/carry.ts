/**
 * What a long-lived process keeps of a conversation's last turn so the next one costs what is new
 * (read.ts reads with it, write.ts writes with it): the body as it came and as it was
 * sent, where each message and tool output lies in both, each output's content key, and what was
 * written for each output. It holds the last body and what was sent for it — nothing older — and
 * no string sliced from either (carried.ts): a long session keeps one turn, however many it has.
 */
import { readTranscript } from '../../input/read.js';
import type { MessageView, ToolOutput, Transcript } from '../../input/transcript.js';
import { detach } from '../../session/kept-record.js';
import { BodySource, CarriedOutput, CarriedView, type OutputFacts } from './carried.js';
import type { Placed, PlacedMessage } from './placed.js';
import type { Written } from './write.js';

export interface CarriedMessage extends PlacedMessage {
  view: CarriedView;
}

export interface TurnCarry {
  format: Placed['format'];
  source: BodySource;
  /** The last body as it came, and as it was sent. */
  raw: Buffer;
  sent: Buffer;
  /** Where each message begins and ends in what was sent (parallel to messages). */
  sentStart: readonly number[];
  sentEnd: readonly number[];
  messages: CarriedMessage[];
  outputs: CarriedOutput[];
  /** Output id → its index in outputs. */
  index: Map<string, number>;
  /** No two outputs share an id (index has one entry per output). */
  unique: boolean;
  /**
   * What was written for each output that was rewritten, by its index in outputs (what the turn's
   * rewrites map held for its id), and which messages got a cache breakpoint.
   */
  sentAt: (string | undefined)[];
  breakpoints: Set<number>;
  /** The store's last removal when this turn began (Store.removedAt), and when every pin was last checked. */
  removedAt?: number;
  backedAt: number;
}

/** A message holding no tool output keeps its text when it is at most this long (else it is read). */
const KEPT_TEXT_BYTES = 64 * 1024;
/** A message holding outputs keeps its text when it is at most this long and not simply its output. */
const KEPT_CARRIER_BYTES = 2 * 1024;

/** Strings that may be slices of a body, copied; short ones are copies already (V8 slices ≥ 13). */
function flat(s: string): string {
  return s.length < 13 ? s : detach(s);
}

/**
 * Names a session repeats on every message or output (roles, tool names), one string each: read
 * from a body, every occurrence is a string of its own — 60,000 in a 20 k session, for every
 * collection to mark, where a handful would do. Bounded, so names never seen again cost little.
 */
const NAMES = new Map<string, string>();
const NAMES_LIMIT = 1024;
const NAME_CHARS = 64;

function named(s: string): string {
  if (s.length > NAME_CHARS) return flat(s);
  const known = NAMES.get(s);
  if (known !== undefined) return known;
  const copy = flat(s);
  if (NAMES.size < NAMES_LIMIT) NAMES.set(copy, copy);
  return copy;
}

function factsOf(o: ToolOutput, messageIndex: number): OutputFacts {
  const f: OutputFacts = { id: flat(o.id), rewritable: o.rewritable, isError: o.isError, messageIndex };
  if (o.toolName !== undefined) f.toolName = named(o.toolName);
  if (o.command !== undefined) f.command = flat(o.command);
  if (o.path !== undefined) f.path = flat(o.path);
  return f;
}

/** A message's view text read alone from the body: its JSON value read as a body of one message. */
function viewReader(source: BodySource, format: Placed['format'], start: number, end: number) {
  return (): string => {
    const message = source.bytes.toString('utf8', start, end);
    const body = format === 'responses' ? `{"input":[${message}]}` : `{"messages":[${message}]}`;
    try {
      return readTranscript(body, format, {}).messages[0]?.text ?? '';
    } catch {
      return '';
    }
  };
}

/**
 * A message's view for later turns. `outputs` are its outputs as read this turn (their texts at
 * hand), `carried` the same outputs as they are carried.
 */
function carryView(
  view: MessageView,
  outputs: readonly ToolOutput[],
  carried: readonly CarriedOutput[],
  placed: PlacedMessage,
  source: BodySource,
  format: Placed['format'],
): CarriedView {
  const base: MessageView = { role: named(view.role), text: '' };
  // The view shares one object per kind of last block (carried.ts), with a type of its own.
  if (view.lastBlock) base.lastBlock = view.lastBlock;
  if (view.boundToPrevious) base.boundToPrevious = true;
  if (view.startsWithThinking) base.startsWithThinking = true;
  const text = view.text;
  // One output whose text is the whole view (a tool result): read through the output.
  if (outputs.length === 1 && text === outputs[0]!.text) {
    return new CarriedView(base, undefined, carried[0]!, source);
  }
  const limit = outputs.length === 0 ? KEPT_TEXT_BYTES : KEPT_CARRIER_BYTES;
  if (text.length <= limit && Buffer.byteLength(text) <= limit)
    return new CarriedView(base, flat(text), undefined, source);
  return new CarriedView(base, undefined, viewReader(source, format, placed.start, placed.end), source);
}

export interface TurnDone {
  placed: Placed;
  transcript: Transcript;
  /** Output id → keyOf of its original, for the outputs new to the carry (the session computed them). */
  hashes: ReadonlyMap<string, string>;
  written: Written;
  rewrites: ReadonlyMap<string, string>;
  /** The same by output index (PipelineResult.rewrittenAt), parallel to transcript.outputs. */
  rewrittenAt?: readonly (string | undefined)[];
  /** The session record's copy of an output's sent text, shared rather than copied again. */
  sentText?: (outputId: string) => string | undefined;
  breakpoints: ReadonlySet<number>;
  removedAt?: number;
  backedAt: number;
}

/**
 * The carry after a turn. `previous` and `kept` (how many leading messages of the previous carry
 * the turn re-used as they were) let messages and outputs of earlier turns be kept as they are.
 */
export function carryTurn(done: TurnDone, previous?: { carry: TurnCarry; kept: number }): TurnCarry {
  const { placed, transcript, hashes, written } = done;
  const reuse = previous && previous.carry.format === placed.format ? previous : undefined;
  const k = reuse?.kept ?? 0;
  const source = reuse?.carry.source ?? new BodySource(placed.bytes);
  const messages: CarriedMessage[] = [];
  const outputs: CarriedOutput[] = [];
  const index = reuse?.carry.index ?? new Map<string, number>();
  const keptOutputs = k > 0 ? (reuse!.carry.messages[k]?.firstOutput ?? reuse!.carry.outputs.length) : 0;
  if (reuse) {
    for (const o of reuse.carry.outputs.slice(keptOutputs)) index.delete(o.id);
    for (let i = 0; i < keptOutputs; i++) outputs.push(reuse.carry.outputs[i]!);
  }
  for (let j = keptOutputs; j < transcript.outputs.length; j++) {
    const o = transcript.outputs[j]!;
    const hash = hashes.get(o.id) ?? '';
    const c = new CarriedOutput(
      factsOf(o, o.messageIndex),
      hash,
      placed.outStart[j]!,
      placed.outEnd[j]!,
      source,
    );
    outputs.push(c);
    index.set(c.id, j);
  }
  for (let i = 0; i < placed.messages.length; i++) {
    const p = placed.messages[i]!;
    if (i < k) {
      messages.push(reuse!.carry.messages[i]!);
      continue;
    }
    const next = placed.messages[i + 1]?.firstOutput ?? outputs.length;
    const view = carryView(
      transcript.messages[i]!,
      transcript.outputs.slice(p.firstOutput, next),
      outputs.slice(p.firstOutput, next),
      p,
      source,
      placed.format,
    );
    const { start, end, breakpointAt, breakpoints, firstOutput } = p;
    messages.push({ start, end, breakpointAt, breakpoints, firstOutput, view });
  }
  // One entry per output id: this turn's texts by index are those of its rewrites map. Otherwise
  // (two outputs share an id) each output takes what the map holds for its id.
  const unique = index.size === outputs.length;
  const byIndex = unique && done.rewrittenAt?.length === outputs.length ? done.rewrittenAt : undefined;
  const sentAt: (string | undefined)[] = new Array(outputs.length);
  const before = reuse?.carry.sentAt;
  for (let j = 0; j < outputs.length; j++) {
    const text = byIndex ? byIndex[j] : done.rewrites.get(outputs[j]!.id);
    if (text === undefined) continue;
    // Texts of this turn may be slices of its body: what an earlier turn carried for the same
    // output, and the record's text, are copies already.
    const was = j < keptOutputs ? before?.[j] : undefined;
    if (was === text) {
      sentAt[j] = was;
      continue;
    }
    const recorded = done.sentText?.(outputs[j]!.id);
    sentAt[j] = recorded === text ? recorded : flat(text);
  }
  // The texts read while deciding this turn are dropped; later turns read from this body.
  source.release(placed.bytes);
  return {
    format: placed.format,
    source,
    raw: placed.bytes,
    sent: written.body,
    sentStart: written.sentStart,
    sentEnd: written.sentEnd,
    messages,
    outputs,
    index,
    unique,
    sentAt,
    breakpoints: new Set(done.breakpoints),
    ...(done.removedAt !== undefined ? { removedAt: done.removedAt } : {}),
    backedAt: done.backedAt,
  };
}
