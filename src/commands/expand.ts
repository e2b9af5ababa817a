/**
 * `cg expand KEY…`: gives back stashed originals. One key prints the original byte for byte;
 * several print one labelled section each. --lines A-B and --grep REGEX take a slice of a large
 * original (grep prints `N:line`, like grep -n, so the agent can cite lines). Its own output is
 * never rewritten by cg. A missing key says plainly that re-running the command is the way back.
 */
import { loadConfig } from '../config.js';
import { UsageError } from '../errors.js';
import { readStdin, warn, writeOut } from '../io.js';
import { recordExpand } from '../stats/index.js';
import { parseKeys } from '../store/marker.js';
import { missMessage } from '../store/miss.js';
import { openStore } from '../store/open.js';
import { readEntry } from '../store/store.js';

export interface ExpandFlags {
  lines?: string;
  grep?: string;
  config?: string;
}

export interface LineRange {
  from: number;
  /** Inclusive; Infinity for "A-". */
  to: number;
}

export function parseLineRange(spec: string): LineRange {
  const m = /^\s*(\d*)\s*(-?)\s*(\d*)\s*$/.exec(spec);
  if (!m || (!m[1] && !m[3]))
    throw new UsageError(`--lines: expected A-B, A-, -B or A (1-based), got "${spec}"`);
  const from = m[1] ? Number(m[1]) : 1;
  const to = m[3] ? Number(m[3]) : m[2] ? Number.POSITIVE_INFINITY : from;
  if (from < 1 || to < from)
    throw new UsageError(`--lines: "${spec}" is not a range of lines (1-based, A ≤ B)`);
  return { from, to };
}

/** Lines of text with their 1-based numbers; a trailing newline does not make an extra line. */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The slice an agent asked for, or the whole text when it asked for none. */
export function sliceOriginal(text: string, range?: LineRange, grep?: RegExp): string {
  if (!range && !grep) return text;
  const lines = splitLines(text);
  const from = range?.from ?? 1;
  const to = Math.min(range?.to ?? lines.length, lines.length);
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    const line = lines[n - 1]!;
    if (!grep) out.push(line);
    else if (grep.test(line)) out.push(`${n}:${line}`);
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

function compileGrep(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (err) {
    throw new UsageError(`--grep: invalid regular expression: ${(err as Error).message}`);
  }
}

export async function expandCommand(args: readonly string[], flags: ExpandFlags): Promise<number> {
  let raw = args.join(' ');
  if (!raw.trim()) {
    if (process.stdin.isTTY)
      throw new UsageError('expand: give a key or marker (or pipe text containing markers)');
    raw = (await readStdin()).toString('utf8');
  }
  const parsed = parseKeys(raw);
  if (!parsed.ok) throw new UsageError(`expand: ${parsed.reason}`);
  const range = flags.lines !== undefined ? parseLineRange(flags.lines) : undefined;
  const grep = flags.grep !== undefined ? compileGrep(flags.grep) : undefined;
  const config = await loadConfig(flags.config);
  const store = openStore(config.store);

  let missing = 0;
  let matched = 0;
  const several = parsed.keys.length > 1;
  for (const key of parsed.keys) {
    const found = await readEntry(store, key);
    if (!found.found) {
      missing++;
      await recordExpand({ key, hit: false, bytes: 0 });
      warn(missMessage(key, found, store.dir));
      continue;
    }
    const bytes = found.bytes;
    const body =
      range || grep ? Buffer.from(sliceOriginal(bytes.toString('utf8'), range, grep), 'utf8') : bytes;
    if (body.length > 0) matched++;
    const written = body;
    if (several) {
      const sep = body.length > 0 && body[body.length - 1] !== 0x0a ? '\n' : '';
      await writeOut(`=== cg expand ${key} ===\n`);
      await writeOut(body);
      await writeOut(sep);
    } else {
      await writeOut(body);
    }
    await recordExpand({
      key,
      hit: true,
      bytes: written.length,
      output: written,
      storeDir: store.dir,
      tokenizer: config.tokenizer,
    });
  }
  if (missing > 0) return 1;
  if (grep && matched === 0) {
    warn(`no line matches ${JSON.stringify(flags.grep)}`);
    return 1;
  }
  return 0;
}
