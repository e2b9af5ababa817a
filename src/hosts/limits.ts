/**
 * What each agent host itself shows the model of a long shell command output, keyed by host name:
 * the one table of those limits (read in the pinned packages, each with where its figure comes
 * from). `cg stats` measures savings against it (src/stats/hosts.ts) and the pipeline's host gate
 * (src/pipeline/host-cap.ts) never hands a host more than it: where cg replaces such an output, the
 * replacement is no more tokens than what the host would have shown of the original (DESIGN §1.9).
 * `frame` renders that view — the host's own wrapper text around what it keeps — so its tokens can be
 * counted like any other text; the wrappers' file paths are placeholders of a typical length.
 *
 * The figures, from the pinned clients (test/clients/clients.json):
 *   - Claude Code 2.1.332: Bash output over bashOutputMaxChars (default 30,000 characters;
 *     BASH_MAX_OUTPUT_LENGTH changes it) is saved to a file and the model reads a
 *     `<persisted-output>` preview of its first 2,000 characters, cut back to the last newline
 *     when that is past half.
 *   - Codex 0.171.0: every model of its bundled catalogue has truncation_policy {mode: tokens,
 *     limit: 10000}; a token is taken as 4 bytes (codex-rs/utils/string approx_bytes_for_tokens),
 *     so 40,000 bytes are kept, half from each end around `…N tokens truncated…`, under
 *     `Total output lines: N`.
 *   - Gemini CLI 0.61.0: tools.truncateToolOutputThreshold, default 40,000 characters;
 *     formatTruncatedToolOutput keeps the first 20 % and the last 80 % and saves the whole to a file.
 * Checked again in the installed 2.1.332 / 0.171.0 / 0.61.0 packages: the claude binary's settings
 * schema (bashOutputMaxChars "default 30000; values clamp to 4000-128000") and `r$=2000` beside
 * `Preview (first`; the 14 truncation_policy entries of codex's catalogue, all {"mode": "tokens",
 * "limit": 10000}, and its `…N tokens truncated…` / `Total output lines:` strings; gemini's
 * DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD = 4e4 and formatTruncatedToolOutput (0.2 of it as head).
 */

export type HostName = 'claude-code' | 'codex' | 'gemini';

export interface HostLimit {
  /** Longest output shown whole; `unit` says what is counted. */
  inline: number;
  unit: 'chars' | 'bytes';
  /** Past `inline`: what is kept, in `unit`; `atNewline`: the head ends at a newline past half. */
  keep: { head: number; tail: number; atNewline?: boolean };
  /** Sources of the figures above. */
  source: string;
  /** The text the model gets for an output past `inline`, from what is kept of it. */
  frame(kept: Kept): string;
}

export interface Kept {
  head: string;
  tail: string;
  /** The whole output, for the sizes and counts a host prints about it. */
  text: string;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)}KB`;
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

export const HOST_LIMITS: Readonly<Record<HostName, HostLimit>> = {
  'claude-code': {
    inline: 30_000,
    unit: 'chars',
    keep: { head: 2_000, tail: 0, atNewline: true },
    source:
      '@anthropic-ai/claude-code@2.1.332: setting bashOutputMaxChars, default 30000 ("Output past this is saved to a file and Claude receives a short preview plus the path"); preview r$=2000 chars, cut back to the last newline when that is past half; the <persisted-output> wrapper; CLAUDECODE=1 in every Bash shell',
    frame: ({ head, text }) =>
      `<persisted-output>\nOutput too large (${kb(Buffer.byteLength(text))}). Full output saved to: /home/user/.claude/projects/-home-user-project/00000000-0000-0000-0000-000000000000/tool-results/toolu_000000000000000000000000.txt\n\nPreview (first 2KB):\n${head}\n...\n</persisted-output>`,
  },
  codex: {
    inline: 40_000,
    unit: 'bytes',
    keep: { head: 20_000, tail: 20_000 },
    source:
      '@openai/codex@0.171.0: every model in its bundled catalogue has truncation_policy {mode: tokens, limit: 10000}; a token is taken as 4 bytes (codex-rs/utils/string approx_bytes_for_tokens), so 40,000 bytes, half from each end around "…N tokens truncated…", under "Total output lines: N" (older releases cut to 10 KiB)',
    frame: ({ head, tail, text }) =>
      `Total output lines: ${lineCount(text)}\n${head}…${Math.ceil((Buffer.byteLength(text) - Buffer.byteLength(head) - Buffer.byteLength(tail)) / 4)} tokens truncated…${tail}`,
  },
  gemini: {
    inline: 40_000,
    unit: 'chars',
    keep: { head: 8_000, tail: 32_000 },
    source:
      '@google/gemini-cli@0.61.0: tools.truncateToolOutputThreshold, default 40000 chars; formatTruncatedToolOutput keeps the first 20% and the last 80% and saves the whole to a file; GEMINI_CLI=1 in every shell',
    frame: ({ head, tail, text }) =>
      `Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /home/user/.gemini/tmp/0000000000000000000000000000000000000000000000000000000000000000/tool-outputs/session-00000000/run_shell_command_0000000000000.txt\n${head}\n\n... [${(text.length - head.length - tail.length).toLocaleString('en-US')} characters omitted] ...\n\n${tail}`,
  },
};

/** Names the hosts' own code and cg's hook arguments use for them, to the table's names. */
const ALIASES: Readonly<Record<string, HostName>> = {
  'claude-code': 'claude-code',
  claude: 'claude-code',
  claudecode: 'claude-code',
  codex: 'codex',
  'codex-cli': 'codex',
  gemini: 'gemini',
  'gemini-cli': 'gemini',
};

/** The limits of a host by any of its names, or undefined for a host cg knows no limits of. */
export function hostLimit(name: string | undefined): HostLimit | undefined {
  const known = name === undefined ? undefined : ALIASES[name.toLowerCase()];
  return known === undefined ? undefined : HOST_LIMITS[known];
}

/** Whether the host shows less than the whole of a text (known) or of `bytes` bytes of text. */
export function hostCaps(host: HostLimit, text: string | undefined, bytes: number): boolean {
  if (text === undefined) return bytes > host.inline; // a char is at least a byte: past in bytes may still fit in chars
  return (host.unit === 'chars' ? text.length : bytes) > host.inline;
}

/** What the host shows the model of a tool output (the text itself when it fits). */
export function hostView(host: HostLimit, text: string): string {
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
function headOf(host: HostLimit, head: string): string {
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
export function hostViewBytesBound(host: HostLimit, bytes: number): number {
  if (bytes <= host.inline) return bytes;
  // A char is at most 3 UTF-8 bytes in a JS string's BMP range, 4 for a surrogate pair of 2 chars.
  const perUnit = host.unit === 'chars' ? 3 : 1;
  return Math.min(bytes, (host.keep.head + host.keep.tail) * perUnit + 400);
}
