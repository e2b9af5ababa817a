/**
 * compactBody: a request body as bytes, in and out, for a long-lived caller (the proxy). Given the
 * caller's memory of each session's last turn (src/proxy/turn/memory.ts), a next turn reads only the
 * messages after the unchanged prefix of the body (read.ts), writes only from the first message
 * that changed (write.ts), and is carried on for the turn after (carry.ts) — the same
 * bytes a full read and write would give. Anything it cannot place goes the plain way (src/engine.ts).
 */
import { isUtf8 } from 'node:buffer';
import { type CompactOptions, type CompactResult, type Decided, decide } from '../../engine.js';
import { readTranscript } from '../../input/read.js';
import type { InputFormat, ToolOutput, Transcript } from '../../input/transcript.js';
import type { Pin } from '../../pipeline/run.js';
import { carryTurn, type TurnCarry } from './carry.js';
import type { TurnMemory } from './memory.js';
import { placeRead, readTurn } from './read.js';
import { breakpointsOf } from './write.js';

/** How long a long-lived caller trusts that replayed markers are still backed, without asking. */
const BACKED_FOR_MS = 3_600_000;

export interface BodyOptions extends CompactOptions {
  format: Exclude<InputFormat, 'text'>;
  /**
   * A long-lived caller's memory of each session's last turn (src/proxy/turn/memory.ts): with an
   * explicit session id, a turn reads and writes only what changed since (the proxy).
   */
  turns?: TurnMemory;
  /** The body already decoded, when the caller had to (the proxy, for a session id): not decoded again. */
  text?: string;
  /** The caller checked that the bytes are valid UTF-8 (the proxy does): not walked again. */
  utf8?: boolean;
  /**
   * What the turn leaves for the session's next one (its record saved, its carry made) is handed
   * back as `finish` instead of done before the body is: the proxy sends the body first, and runs
   * finish before the session's next turn (or never, when it sends the original instead).
   */
  deferFinish?: boolean;
}

export interface BodyResult extends Omit<CompactResult, 'output' | 'outputParts'> {
  body: Buffer;
  /** With deferFinish: saves the session's record and memory of this turn; never rejects. */
  finish?: () => Promise<void>;
}

/**
 * A request body as bytes, in and out: compactText for a caller that holds bytes (the proxy), and,
 * given its memory of the session's last turn, at the cost of what is new since — the same bytes a
 * full read would give.
 */
export async function compactBody(bytes: Buffer, options: BodyOptions): Promise<BodyResult> {
  const id = options.session
    ? (options.session.id ?? ((options.session.env ?? process.env).CG_SESSION || undefined))
    : undefined;
  const memory =
    id && options.turns && options.store && options.session
      ? options.turns.of(`${options.session.dir ?? ''}\u0000${id}`)
      : undefined;
  const previous = memory?.carry;
  // What the store says of removals now: the pins of the last turn's outputs, all backed then, are
  // backed still while it says none happened since (and for an hour at most).
  const removedAt = await options.store?.removedAt?.().catch(() => undefined);
  // Byte offsets are placed by walking UTF-8 (placed.ts): a body that is not is read the plain way.
  const placeable = options.utf8 === true || isUtf8(bytes);
  let read = previous && placeable ? readTurn(previous, bytes) : undefined;
  let transcript: Transcript;
  if (read) transcript = read.transcript;
  else {
    // The text is kept only for the write() of a body that cannot be placed.
    const text = options.text ?? bytes.toString('utf8');
    transcript = readTranscript(text, options.format, {});
    read = placeable ? placeRead(transcript, text, bytes) : undefined;
    if (!read) {
      const d = await decide(transcript, options);
      const changed = d.rewrites.size > 0 || d.edits.length > 0;
      const body = changed ? Buffer.from(transcript.write(d.rewrites, d.edits), 'utf8') : bytes;
      return finished(bodyResult(body, changed, transcript, d), () => d.save(), options);
    }
  }
  const now = Date.now();
  const trusted =
    previous !== undefined &&
    options.store?.removedAt !== undefined &&
    removedAt === previous.removedAt &&
    now - previous.backedAt < BACKED_FOR_MS;
  const d = await decide(transcript, options, {
    ...(memory ? { kept: memory.kept } : {}),
    hashOf: read.hashOf,
    ...(trusted
      ? { backed: (o: ToolOutput, pin: Pin, i: number) => sentFor(previous, o, i) === pin.text }
      : {}),
  });
  if (read.kept > 0)
    d.notes.push(
      `session ${d.session?.label ?? id}: ${read.kept} of ${transcript.messages.length} messages as in the last turn, not read again`,
    );
  const changed = d.rewrites.size > 0 || d.edits.length > 0;
  const written = read.write(d.rewrites, d.edits, d.rewrittenAt);
  const body = !changed ? bytes : written ? written.body : Buffer.from(transcript.write(d.rewrites, d.edits));
  const finish = async () => {
    try {
      await d.save();
    } catch (err) {
      // The record may be half what it was: the next turn reads the body whole and its record anew.
      if (memory) {
        memory.carry = undefined;
        memory.kept.record = undefined;
      }
      throw err;
    }
    // An aborted turn (the proxy's deadline passed and the original went on) leaves the memory alone:
    // a later turn of the session may already be running on it.
    if (!memory || options.signal?.aborted) return;
    if (written) {
      memory.carry = carryTurn(
        {
          placed: read.placed,
          transcript,
          hashes: d.session?.hashes ?? new Map(),
          ...(d.session ? { sentText: d.session.sentText } : {}),
          written: changed ? written : { ...written, body: bytes },
          rewrites: d.rewrites,
          rewrittenAt: d.rewrittenAt,
          breakpoints: breakpointsOf(d.edits) ?? new Set(),
          ...(removedAt !== undefined ? { removedAt } : {}),
          backedAt: trusted ? previous.backedAt : now,
        },
        previous && read.kept > 0 ? { carry: previous, kept: read.kept } : undefined,
      );
      options.turns!.settle();
    } else memory.carry = undefined;
  };
  return finished(bodyResult(body, changed, transcript, d), finish, options);
}

/** The result, its finish run now (the default) or handed back to run later (deferFinish). */
async function finished(
  result: BodyResult,
  finish: () => Promise<void>,
  options: BodyOptions,
): Promise<BodyResult> {
  if (!options.deferFinish) {
    await finish();
    return result;
  }
  return { ...result, finish: () => finish().catch(() => undefined) };
}

/** What the carry says was sent last turn for an output (the same object at the same place, or by id). */
function sentFor(carry: TurnCarry, o: ToolOutput, i: number): string | undefined {
  const j = carry.outputs[i] === o ? i : carry.index.get(o.id);
  return j === undefined ? undefined : carry.sentAt[j];
}

function bodyResult(body: Buffer, changed: boolean, t: Transcript, d: Decided): BodyResult {
  return {
    body,
    changed,
    format: t.format,
    events: d.events,
    source: d.source,
    notes: d.notes,
    ...(d.session ? { session: d.session.label } : {}),
  };
}
