/**
 * Deferred exact counting. Loading the tokenizer costs ~0.4 s and counting runs at ~8 MB/s, so the
 * hot path (`cmd | cg`) never tokenizes for stats. A run that rewrote something writes a pending
 * record instead of ledger lines; any reader (`cg stats`) settles pending records into exact counts
 * before it reads the ledger.
 *
 * A pending record is one file, pending/<run>.<bytes>.pend, written to a temp name and renamed into
 * place (a reader never sees half of one); its size in the name lets a writer total the directory
 * with one readdir. Its first line is a JSON header:
 *
 *   {"v":1,"r":run,"tk":"o200k",
 *    "lines":[ledger lines as in line.ts, token fields not yet filled],
 *    "fill":[[lineIndex,"ti"|"to"|"tr",[textIndex,…]],…],   the field is the sum of those texts' tokens
 *    "texts":[{"b":bytes, then one of:
 *              "n":count                 already counted (e.g. for the `cg run` footer)
 *              "at":offset               inline: the UTF-8 bytes at that offset after the header line
 *              "key":k,"store":dir       the original stashed under k in that store
 *                ,"view":host            … counted as what that agent host would show of it (hosts.ts)
 *              nothing                   cannot be counted: estimated as ceil(b/4), flagged est }]}
 *
 * followed by the inline texts' bytes. A stashed original is always referenced by key, never copied:
 * originals hold secrets, and the state directory must not keep what `cg store clear` removed (the
 * store command settles pending records before it clears). Only texts that are not in the store
 * (the short rewritten outputs, intermediate texts, expand slices) are inline, up to
 * RECORD_INLINE_MAX per record and while the directory holds under PENDING_BUDGET; a text past either
 * bound, or an original that left the store before it was counted, is an estimate, and every line
 * depending on it says so with est:1. So the directory stays bounded however long `cg stats` is
 * not run.
 *
 * Settling claims a record by renaming it to <run>.claim-<pid>-<rand> (only one of several
 * concurrent readers' renames succeeds), counts, appends the lines with exact figures in one batch,
 * then deletes the claim. A claim untouched for STALE_MS (its reader died) is claimed again; lines
 * carry d:1 and their index, so if the dead reader had appended already, readers count them once.
 * A record whose header cannot be read is renamed <run>.bad and reported, never silently dropped.
 */
import { closeSync, openSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { arrayAt, valueAt } from '../json/payload.js';
import { makeDirs, makeDirsSync } from '../make-dirs.js';
import { createFsStore, STORE_DEFAULTS } from '../store/fs-store.js';
import type { Store } from '../store/store.js';
import { createTokens, estimateTokens, TOKENIZERS, type TokenizerName, type Tokens } from '../tokens.js';
import { hostModel, hostView, hostViewBytesBound } from './hosts.js';
import { appendLines } from './ledger.js';
import { formatLine, type LedgerLine } from './line.js';
import type { LedgerLocation } from './paths.js';

/** Inline text one record may hold: far above a compacted output, far below a big original. */
export const RECORD_INLINE_MAX = 256 * 1024;
/** Pending records past this total inline nothing more until a reader settles them. */
export const PENDING_BUDGET = 8 * 1024 * 1024;
export const STALE_MS = 10 * 60_000;
const TMP_STALE_MS = 60 * 60_000;
const PEND = '.pend';

export type TokenField = 'ti' | 'to' | 'tr' | 'hi' | 'ho' | 'hr';
export type Fill = [line: number, field: TokenField, texts: number[]];

export interface TextRef {
  b: number;
  n?: number;
  at?: number;
  key?: string;
  store?: string;
  view?: string;
}

export interface PendingHeader {
  v: 1;
  r: string;
  tk: string;
  lines: LedgerLine[];
  fill: Fill[];
  texts: TextRef[];
}

// Text that cannot be counted is estimated (tokens.ts); re-exported for the ledger's readers.
export { estimateTokens };

/** Records up to this size are written synchronously; a larger one (a long text inline) on the pool. */
const SYNC_WRITE_MAX = 256 << 10;
/** Header lines are written in pieces of about this many UTF-16 units, never as one string. */
const PIECE_CHARS = 1 << 20;

/** Writes a record atomically: temp file in the same directory, then rename. */
export async function writePending(
  loc: LedgerLocation,
  header: PendingHeader,
  blobs: readonly (string | Uint8Array)[],
): Promise<void> {
  const { lines, ...head } = header;
  await writePendingRecord(loc, head, lines, blobs);
}

/**
 * writePending with the lines given one by one (a run of 77,000 events through the proxy): each is
 * serialised as it is written, so neither the lines nor the header (20 MB there) are ever held
 * whole. The bytes are JSON.stringify's of the whole header.
 */
export async function writePendingRecord(
  loc: LedgerLocation,
  head: Omit<PendingHeader, 'lines'>,
  lines: Iterable<LedgerLine>,
  blobs: readonly (string | Uint8Array)[],
): Promise<void> {
  const tmp = join(loc.pending, `.tmp-${head.r}`);
  const pieces = headerPieces(head, lines)[Symbol.iterator]();
  let size = 0;
  for (const b of blobs) size += typeof b === 'string' ? Buffer.byteLength(b) : b.length;
  // Pieces are taken while they may still make a small record, the usual one (a few hundred bytes):
  // that is written in four system calls, no thread-pool round trips.
  const first: string[] = [];
  let small = false;
  while (size <= SYNC_WRITE_MAX) {
    const p = pieces.next();
    if (p.done) {
      small = true;
      break;
    }
    first.push(p.value);
    size += Buffer.byteLength(p.value);
  }
  if (small) {
    makeDirsSync(loc.pending);
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      // writeFileSync on a descriptor writes all of each piece, however the kernel splits it.
      for (const piece of first) writeFileSync(fd, piece);
      for (const b of blobs) writeFileSync(fd, b);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(loc.pending, `${head.r}.${size}${PEND}`));
    return;
  }
  function* rest(): Generator<string | Uint8Array> {
    yield* first;
    first.length = 0;
    for (let p = pieces.next(); !p.done; p = pieces.next()) {
      size += Buffer.byteLength(p.value);
      yield p.value;
    }
    yield* blobs;
  }
  await makeDirs(loc.pending);
  await writeFile(tmp, rest(), { mode: 0o600, flag: 'wx' });
  await rename(tmp, join(loc.pending, `${head.r}.${size}${PEND}`));
}

/** JSON.stringify of the header {v, r, tk, lines, fill, texts}, in pieces of about PIECE_CHARS. */
function* headerPieces(head: Omit<PendingHeader, 'lines'>, lines: Iterable<LedgerLine>): Generator<string> {
  let piece = `{"v":${JSON.stringify(head.v)},"r":${JSON.stringify(head.r)},"tk":${JSON.stringify(head.tk)},"lines":[`;
  let first = true;
  for (const line of lines) {
    piece += first ? JSON.stringify(line) : `,${JSON.stringify(line)}`;
    first = false;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = '';
    }
  }
  yield `${piece}],"fill":${JSON.stringify(head.fill)},"texts":${JSON.stringify(head.texts)}}\n`;
}

/**
 * Bytes held by pending records, from their names alone (records of older versions, named without
 * a size, and claims in progress count as nothing: they are few and about to go).
 */
export async function pendingBytes(loc: LedgerLocation): Promise<number> {
  let names: string[];
  try {
    names = readdirSync(loc.pending); // one getdents: not worth a thread-pool round trip
  } catch {
    return 0;
  }
  let total = 0;
  for (const name of names) {
    if (!name.endsWith(PEND)) continue;
    const size = Number(name.slice(name.indexOf('.') + 1, -PEND.length));
    if (Number.isSafeInteger(size)) total += size;
  }
  return total;
}

export interface SettleResult {
  /** Records this reader counted and appended. */
  settled: number;
  /** Records that could not be read (renamed .bad). */
  bad: number;
  /** Records still pending afterwards (claimed by another reader, or failed to append). */
  left: number;
}

/** Settles every pending record this process can claim. Never throws for a single bad record. */
export async function settlePending(
  loc: LedgerLocation,
  opts: { now?: number; staleMs?: number } = {},
): Promise<SettleResult> {
  const result: SettleResult = { settled: 0, bad: 0, left: 0 };
  let names: string[];
  try {
    names = await readdir(loc.pending);
  } catch {
    return result;
  }
  const now = opts.now ?? Date.now();
  const staleMs = opts.staleMs ?? STALE_MS;
  for (const name of names) {
    const path = join(loc.pending, name);
    if (name.startsWith('.tmp-')) {
      // A writer that died between write and rename; an hour is far beyond any real write.
      if (await olderThan(path, now - TMP_STALE_MS)) await unlink(path).catch(() => undefined);
      continue;
    }
    const claimed = name.includes('.claim-');
    if (!claimed && !name.endsWith(PEND)) continue;
    if (claimed && !(await olderThan(path, now - staleMs))) {
      result.left++;
      continue;
    }
    const run = name.slice(0, name.indexOf('.'));
    const claim = join(loc.pending, `${run}.claim-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
    try {
      // Touch first, rename second: the claim is born fresh, so nobody mistakes it for a stale one.
      const t = new Date(now);
      await utimes(path, t, t);
      await rename(path, claim);
    } catch {
      continue; // another reader claimed it first
    }
    const outcome = await settleOne(loc, claim);
    if (outcome === 'settled') result.settled++;
    else if (outcome === 'bad') {
      result.bad++;
      await rename(claim, join(loc.pending, `${run}.bad`)).catch(() => undefined);
    } else result.left++;
  }
  return result;
}

/** Bad records, for the report: they hold events that could not be counted. */
export async function countBad(loc: LedgerLocation): Promise<number> {
  try {
    return (await readdir(loc.pending)).filter((n) => n.endsWith('.bad')).length;
  } catch {
    return 0;
  }
}

async function olderThan(path: string, limit: number): Promise<boolean> {
  try {
    return (await stat(path)).mtimeMs < limit;
  } catch {
    return false;
  }
}

async function settleOne(loc: LedgerLocation, claim: string): Promise<'settled' | 'bad' | 'failed'> {
  let raw: Buffer;
  let header: PendingHeader;
  let bodyStart: number;
  try {
    raw = await readFile(claim);
    const nl = raw.indexOf(10);
    if (nl < 0) return 'bad';
    const head: unknown = JSON.parse(raw.subarray(0, nl).toString('utf8'));
    if (valueAt(head, 'v') !== 1 || !arrayAt(head, 'lines') || !arrayAt(head, 'texts')) return 'bad';
    header = head as PendingHeader;
    bodyStart = nl + 1;
  } catch {
    return 'bad';
  }
  try {
    const tokenizer = TOKENIZERS.includes(header.tk as TokenizerName)
      ? (header.tk as TokenizerName)
      : undefined;
    const tokens = tokenizer ? createTokens(tokenizer) : undefined;
    const body = raw.subarray(bodyStart);
    const counts: Count[] = [];
    const stored = new StoredTexts();
    // One at a time: a stored original may be large, and counting is synchronous anyway.
    for (const ref of header.texts) counts.push(await countText(ref, body, tokens, stored));
    const lines = header.lines.map((l, i) => ({ ...l, d: 1 as const, i }));
    for (const [index, field, texts] of header.fill ?? []) {
      const line = lines[index] as Record<string, unknown> & LedgerLine;
      let sum = 0;
      for (const t of texts) {
        const c = counts[t];
        if (!c) continue;
        sum += c.n;
        if (c.estimate) line.est = 1;
      }
      line[field] = sum;
    }
    await appendLines(loc, lines.map(formatLine));
  } catch {
    return 'failed'; // left claimed; a later reader takes it over once stale
  }
  await unlink(claim).catch(() => undefined);
  return 'settled';
}

interface Count {
  n: number;
  estimate: boolean;
}

async function countText(
  ref: TextRef,
  body: Buffer,
  tokens: Tokens | undefined,
  stored: StoredTexts,
): Promise<Count> {
  const host = ref.view === undefined ? undefined : hostModel(ref.view);
  const estimate = {
    n: estimateTokens(host ? hostViewBytesBound(host, ref.b) : ref.b),
    estimate: true,
  };
  if (ref.view !== undefined && !host) return estimate; // a host this version does not model
  if (typeof ref.n === 'number') return { n: ref.n, estimate: false };
  if (!tokens) return estimate;
  if (typeof ref.at === 'number') {
    if (ref.at + ref.b > body.length) return estimate;
    return { n: await tokens.count(body.toString('utf8', ref.at, ref.at + ref.b)), estimate: false };
  }
  if (ref.key && ref.store) {
    // A different length means the stored original is not the text meant (a replayed output starts
    // from what was sent, not from its original): better an estimate than a wrong exact count.
    const text = await stored.read(ref.store, ref.key, ref.b);
    if (text === undefined) return estimate;
    return { n: await tokens.count(host ? hostView(host, text) : text), estimate: false };
  }
  return estimate;
}

/** The last original read: a run counts it whole and through a host's view, one read for both. */
class StoredTexts {
  private last: { dir: string; key: string; length: number; text: string | undefined } | undefined;

  async read(dir: string, key: string, length: number): Promise<string | undefined> {
    const l = this.last;
    if (l && l.dir === dir && l.key === key && l.length === length) return l.text;
    const text = await readStored(dir, key, length);
    this.last = { dir, key, length, text };
    return text;
  }
}

/**
 * An original from the store it was stashed in, leaving its LRU time or expiry as it was: counting
 * is not a use. A disk store is opened by its directory; a shared store (its location is a
 * redis:// URL in display form, without the password) is reached through the store the current
 * config opens, when that is the same one; otherwise the text is estimated.
 */
async function readStored(location: string, key: string, length: number): Promise<string | undefined> {
  const store = await storeAt(location);
  if (!store) return undefined;
  // The record says how long the original is: nothing longer is inflated to count it.
  const found = store.peek ? await store.peek(key, { maxBytes: length }) : { found: false as const };
  return found.found && found.bytes.length === length ? found.bytes.toString('utf8') : undefined;
}

const opened = new Map<string, Promise<Store | undefined>>();

function storeAt(location: string): Promise<Store | undefined> {
  let store = opened.get(location);
  if (!store) {
    store = /^rediss?:\/\//.test(location)
      ? configuredStore(location)
      : Promise.resolve(createFsStore({ dir: location, ...STORE_DEFAULTS }));
    opened.set(location, store);
  }
  return store;
}

async function configuredStore(location: string): Promise<Store | undefined> {
  try {
    const [{ loadConfig }, { openStore }] = await Promise.all([
      import('../config.js'),
      import('../store/open.js'),
    ]);
    const store = openStore((await loadConfig(undefined)).store, process.env, () => undefined);
    return store.dir === location ? store : undefined;
  } catch {
    return undefined;
  }
}
