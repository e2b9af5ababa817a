/**
 * What each agent host would have shown the model of a shell command's output without cg — the
 * baseline `cg stats` measures savings against. Hosts do not pass a long output through whole:
 * Claude Code keeps a long one in a file and shows a short preview, Codex and Gemini CLI cut out
 * its middle. Counting a saving against the raw output would credit cg with tokens the model never
 * saw. HOSTS is the one table of those limits, each with where its figure comes from (read in the
 * pinned packages, not guessed); hostView renders what a host shows, so its tokens can be counted
 * exactly like any other text. The wrappers' file paths are placeholders of a typical length.
 *
 * Which host ran cg: RecordMeta.host (the hook and the proxy know it), else CG_HOST, else the
 * variable the host itself sets in the shells it starts (detectEnv). `CG_HOST=none` says "no host":
 * the raw output is the baseline. The cap applies to tool outputs cg saw before the host did (a
 * pipe, `cg run`, a hook); a request body through `cg proxy` already holds what the host showed.
 */

export type HostName = 'claude-code' | 'codex' | 'gemini';

interface HostModel {
  name: HostName;
  /** Values of CG_HOST that mean this host (lower-case). */
  aliases: readonly string[];
  /** Set by the host in every shell it runs a command in. */
  detectEnv: string;
  /** Longest output shown whole; `unit` says what is counted. */
  inline: number;
  unit: 'chars' | 'bytes';
  /** Past `inline`: what is kept, in `unit`; `atNewline`: the head ends at a newline past half. */
  keep: { head: number; tail: number; atNewline?: boolean };
  /** Sources of the figures above. */
  source: string;
  /** For `cg stats`: the host's name and, in a few words, what it shows. */
  label: string;
  shows: string;
  /** The text the model gets for an output past `inline`, from what is kept of it. */
  frame(kept: Kept): string;
}

interface Kept {
  head: string;
  tail: string;
  /** The whole output, for the sizes and counts a host prints about it. */
  text: string;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)}KB`;
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

export const HOSTS: readonly HostModel[] = [
  {
    name: 'claude-code',
    aliases: ['claude-code', 'claude', 'claudecode'],
    detectEnv: 'CLAUDECODE',
    inline: 30_000,
    unit: 'chars',
    keep: { head: 2_000, tail: 0, atNewline: true },
    source:
      '@anthropic-ai/claude-code@2.1.332: setting bashOutputMaxChars, default 30000 ("Output past this is saved to a file and Claude receives a short preview plus the path"); preview r$=2000 chars, cut back to the last newline when that is past half; the <persisted-output> wrapper; CLAUDECODE=1 in every Bash shell',
    label: 'Claude Code',
    shows: '≤30,000 chars whole, else a 2 KB preview',
    frame: ({ head, text }) =>
      `<persisted-output>\nOutput too large (${kb(Buffer.byteLength(text))}). Full output saved to: /home/user/.claude/projects/-home-user-project/00000000-0000-0000-0000-000000000000/tool-results/toolu_000000000000000000000000.txt\n\nPreview (first 2KB):\n${head}\n...\n</persisted-output>`,
  },
  {
    name: 'codex',
    aliases: ['codex', 'codex-cli'],
    detectEnv: 'CODEX_THREAD_ID',
    inline: 40_000,
    unit: 'bytes',
    keep: { head: 20_000, tail: 20_000 },
    source:
      '@openai/codex@0.171.0: every model in its bundled catalogue has truncation_policy {mode: tokens, limit: 10000}; a token is taken as 4 bytes (codex-rs/utils/string approx_bytes_for_tokens), so 40,000 bytes, half from each end around "…N tokens truncated…", under "Total output lines: N" (older releases cut to 10 KiB)',
    label: 'Codex',
    shows: '≤40,000 bytes whole, else 20 KB of each end',
    frame: ({ head, tail, text }) =>
      `Total output lines: ${lineCount(text)}\n${head}…${Math.ceil((Buffer.byteLength(text) - Buffer.byteLength(head) - Buffer.byteLength(tail)) / 4)} tokens truncated…${tail}`,
  },
  {
    name: 'gemini',
    aliases: ['gemini', 'gemini-cli'],
    detectEnv: 'GEMINI_CLI',
    inline: 40_000,
    unit: 'chars',
    keep: { head: 8_000, tail: 32_000 },
    source:
      '@google/gemini-cli@0.61.0: tools.truncateToolOutputThreshold, default 40000 chars; formatTruncatedToolOutput keeps the first 20% and the last 80% and saves the whole to a file; GEMINI_CLI=1 in every shell',
    label: 'Gemini CLI',
    shows: '≤40,000 chars whole, else 8 K + 32 K of the ends',
    frame: ({ head, tail, text }) =>
      `Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /home/user/.gemini/tmp/0000000000000000000000000000000000000000000000000000000000000000/tool-outputs/session-00000000/run_shell_command_0000000000000.txt\n${head}\n\n... [${(text.length - head.length - tail.length).toLocaleString('en-US')} characters omitted] ...\n\n${tail}`,
  },
];

const BY_ALIAS = new Map(HOSTS.flatMap((h) => h.aliases.map((a) => [a, h] as const)));
const BY_NAME = new Map(HOSTS.map((h) => [h.name as string, h]));

/** Values of CG_HOST (and RecordMeta.host) that mean "no host: count against the raw output". */
const NO_HOST = new Set(['none', 'off', 'raw', '0']);

/** A recorded host name is kept as given (capped), so a host cg does not model yet is still named. */
const HOST_NAME_RE = /^[a-z0-9][a-z0-9._-]{0,31}$/;

/**
 * The host to record for a run: the explicit one, else CG_HOST, else the one whose own variable is
 * set. Undefined when none is known or "none" was said.
 */
export function resolveHost(explicit: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const given = (explicit ?? env.CG_HOST)?.trim().toLowerCase();
  if (given !== undefined && given !== '') {
    if (NO_HOST.has(given)) return undefined;
    const known = BY_ALIAS.get(given);
    if (known) return known.name;
    return HOST_NAME_RE.test(given) ? given : undefined;
  }
  for (const h of HOSTS) if (env[h.detectEnv]) return h.name;
  return undefined;
}

/** The model of a host cg knows how the host caps output for, else undefined. */
export function hostModel(name: string | undefined): HostModel | undefined {
  return name === undefined ? undefined : BY_NAME.get(name);
}

/** Whether the host shows less than the whole of a text (known) or of `bytes` bytes of text. */
export function hostCaps(host: HostModel, text: string | undefined, bytes: number): boolean {
  if (text === undefined) return bytes > host.inline; // a char is at least a byte: past in bytes may still fit in chars
  return (host.unit === 'chars' ? text.length : bytes) > host.inline;
}

/** What the host shows the model of a tool output (the text itself when it fits). */
export function hostView(host: HostModel, text: string): string {
  if (host.unit === 'chars') {
    if (text.length <= host.inline) return text;
    const tail = host.keep.tail > 0 ? text.slice(text.length - host.keep.tail) : '';
    return host.frame({ head: headOf(host, text.slice(0, host.keep.head)), tail, text });
  }
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= host.inline) return text;
  const head = headOf(host, utf8Prefix(buf, host.keep.head));
  const tail = utf8Suffix(buf, host.keep.tail);
  return host.frame({ head, tail, text });
}

/** The kept head, cut back to its last newline when the host does so and that is past half. */
function headOf(host: HostModel, head: string): string {
  if (!host.keep.atNewline) return head;
  const nl = head.lastIndexOf('\n');
  return nl > head.length * 0.5 ? head.slice(0, nl) : head;
}

/** The longest prefix of at most `max` bytes that ends on a character boundary. */
function utf8Prefix(buf: Buffer, max: number): string {
  let end = Math.min(max, buf.length);
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.toString('utf8', 0, end);
}

/** The longest suffix of at most `max` bytes that starts on a character boundary. */
function utf8Suffix(buf: Buffer, max: number): string {
  let start = Math.max(0, buf.length - max);
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return buf.toString('utf8', start);
}

/** Upper bound on the bytes of a host's view of `bytes` bytes of text (for estimates). */
export function hostViewBytesBound(host: HostModel, bytes: number): number {
  if (bytes <= host.inline) return bytes;
  // A char is at most 3 UTF-8 bytes in a JS string's BMP range, 4 for a surrogate pair of 2 chars.
  const perUnit = host.unit === 'chars' ? 3 : 1;
  return Math.min(bytes, (host.keep.head + host.keep.tail) * perUnit + 400);
}

/**
 * One line (≤ 80 columns) naming what the host-capped figures are measured against, from the hosts
 * the report's runs were recorded with (undefined: runs with no host, counted against the raw).
 */
export function baselineLine(hosts: readonly (string | undefined)[]): string {
  const known = [...new Set(hosts)].map(hostModel).filter((h): h is HostModel => h !== undefined);
  const raw = hosts.some((h) => hostModel(h) === undefined);
  if (known.length === 0) return 'vs raw output: no agent host recorded (CG_HOST, see cg stats --help)';
  if (known.length === 1 && !raw) return `vs host: what ${known[0]!.label} shows, ${known[0]!.shows}`;
  const names = known.map((h) => h.label).join(', ');
  const verb = known.length === 1 ? 'shows' : 'show';
  return `vs host: what ${names} ${verb}${raw ? '; raw where no host is recorded' : ''}`;
}
