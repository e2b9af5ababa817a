/**
 * `cg expand KEY…`: gives back stashed originals. One key prints the original byte for byte;
 * several print one labelled section each. --lines A-B and --grep REGEX take a slice of a large
 * original (see store/slice.ts); a range that starts past the original's end says how many lines
 * it has (exit 1), never an empty success. Its own output is never rewritten by cg. A missing key
 * says plainly that re-running the command is the way back (exit 1).
 *
 * Keys on the command line are read strictly: an argument that is not a key or marker is a usage
 * error. Text on stdin is read the way an agent pipes it — every marker in it is expanded and the
 * rest ignored — and with no marker at all it says so (exit 1). Time is linear in the number of
 * markers: keys are deduplicated by a set, fetched a window at a time, written in large chunks and
 * recorded in the stats ledger with one write.
 */
import { loadConfig } from '../config.js';
import { NotFoundError, UsageError } from '../errors.js';
import { readStdin, writeOut } from '../io.js';
import { type ExpandRecord, recordExpands } from '../stats/index.js';
import { parseKeys, shownToken } from '../store/marker.js';
import { missMessage } from '../store/miss.js';
import { openStore } from '../store/open.js';
import {
  compileGrep,
  type LineRange,
  type LineTest,
  parseLineRange,
  rangeProblem,
  sliceOriginal,
} from '../store/slice.js';
import { readEntry } from '../store/store.js';

export interface ExpandFlags {
  lines?: string;
  grep?: string;
  config?: string;
}

/** Store reads in flight at once: enough to hide each read's latency, few enough to stay polite. */
const WINDOW = 64;
/** Output is written in chunks of about this size (one write per key would cost a syscall each). */
const FLUSH_BYTES = 1 << 20;

/** Marker forms inside text: <<cg:KEY>>, <cg:KEY>, cg:KEY, hex in either case. */
const MARKER_FORM = /<{0,2}cg:([0-9a-f]{16})(?![0-9a-z])>{0,2}/gi;
const BARE_KEY = /^[0-9a-f]{16}$/i;

/**
 * The keys in piped text, in order of first appearance. Text that is nothing but keys (bare, comma-
 * or space-separated) or a JSON {"key"|"marker"|"id": …} is read as such; anything else is scanned
 * for markers and the rest of it ignored. Undefined when it holds no key at all.
 */
export function keysInText(text: string): string[] | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const parsed = parseKeys(trimmed);
    if (parsed.ok) return parsed.keys;
  }
  const keys = new Set<string>();
  for (const m of trimmed.matchAll(MARKER_FORM)) keys.add(m[1]!.toLowerCase());
  if (keys.size === 0) {
    const words = trimmed.split(/[\s,]+/).filter((w) => w !== '');
    if (words.length > 0 && words.every((w) => BARE_KEY.test(w)))
      for (const w of words) keys.add(w.toLowerCase());
  }
  return keys.size > 0 ? [...keys] : undefined;
}

async function keysToExpand(args: readonly string[]): Promise<string[]> {
  const raw = args.join(' ');
  if (raw.trim()) {
    const parsed = parseKeys(raw);
    if (!parsed.ok) throw new UsageError(`expand: ${parsed.reason}`);
    return parsed.keys;
  }
  if (process.stdin.isTTY)
    throw new UsageError('expand: give a key or marker (or pipe text containing markers)');
  const keys = keysInText((await readStdin()).toString('utf8'));
  if (!keys) throw new NotFoundError('expand: no cg marker in the input (expected <<cg:KEY>> or a key)');
  return keys;
}

/** Collects output and writes it in large chunks, in order. */
class ChunkedOut {
  private parts: (string | Uint8Array)[] = [];
  private bytes = 0;

  async push(part: string | Uint8Array): Promise<void> {
    this.parts.push(part);
    this.bytes += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
    if (this.bytes >= FLUSH_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const data =
      this.parts.length === 1
        ? this.parts[0]!
        : Buffer.concat(this.parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
    this.parts = [];
    this.bytes = 0;
    await writeOut(data);
  }
}

export async function expandCommand(args: readonly string[], flags: ExpandFlags): Promise<number> {
  // Options first: a bad --lines or --grep is a usage error whatever the input holds.
  const range: LineRange | undefined = flags.lines !== undefined ? parseLineRange(flags.lines) : undefined;
  const grep: LineTest | undefined = flags.grep !== undefined ? await compileGrep(flags.grep) : undefined;
  const keys = await keysToExpand(args);
  const config = await loadConfig(flags.config);
  const store = openStore(config.store);

  const out = new ChunkedOut();
  const records: ExpandRecord[] = [];
  const missing: string[] = [];
  /** Keys whose original ends before --lines starts. */
  const beyond: string[] = [];
  let matched = 0;
  const several = keys.length > 1;
  for (let i = 0; i < keys.length; i += WINDOW) {
    const window = keys.slice(i, i + WINDOW);
    const entries = await Promise.all(window.map((key) => readEntry(store, key)));
    for (const [j, key] of window.entries()) {
      const found = entries[j]!;
      if (!found.found) {
        missing.push(missMessage(key, found, store.dir));
        records.push({ key, hit: false, bytes: 0 });
        continue;
      }
      const bytes = found.bytes;
      const outside = range ? rangeProblem(bytes.toString('utf8'), range) : undefined;
      if (outside) {
        beyond.push(several ? `${key}: ${outside}` : outside);
        records.push({ key, hit: true, bytes: 0, storeDir: store.dir, tokenizer: config.tokenizer });
        continue;
      }
      const body =
        range || grep ? Buffer.from(sliceOriginal(bytes.toString('utf8'), range, grep), 'utf8') : bytes;
      if (body.length > 0) matched++;
      if (several) {
        await out.push(`=== cg expand ${key} ===\n`);
        await out.push(body);
        if (body.length > 0 && body[body.length - 1] !== 0x0a) await out.push('\n');
      } else {
        await out.push(body);
      }
      records.push({
        key,
        hit: true,
        bytes: body.length,
        output: body,
        storeDir: store.dir,
        tokenizer: config.tokenizer,
      });
    }
  }
  await out.flush();
  await recordExpands(records);
  if (missing.length > 0 || beyond.length > 0) {
    process.stderr.write([...missing, ...beyond].map((line) => `cg: ${line}\n`).join(''));
    return 1;
  }
  if (grep && matched === 0) {
    process.stderr.write(`cg: no line matches ${shownToken(flags.grep ?? '')}\n`);
    return 1;
  }
  return 0;
}
