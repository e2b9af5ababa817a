/**
 * What Claude Code 2.1.332 shows the model of a long Bash output: over bashOutputMaxChars (default
 * 30,000 characters; BASH_MAX_OUTPUT_LENGTH changes it) the output is saved to a file and the model
 * reads a `<persisted-output>` preview of its first 2,000 characters, cut back to the last newline
 * when that is past half. Checked in the binary: the settings schema (bashOutputMaxChars "default
 * 30000; values clamp to 4000-128000") and `r$=2000` beside `Preview (first`.
 */
import type { HostLimit } from '../limits.js';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)}KB`;

export const CLAUDE_LIMIT: HostLimit = {
  inline: 30_000,
  unit: 'chars',
  keep: { head: 2_000, tail: 0, atNewline: true },
  source:
    '@anthropic-ai/claude-code@2.1.332: setting bashOutputMaxChars, default 30000 ("Output past this is saved to a file and Claude receives a short preview plus the path"); preview r$=2000 chars, cut back to the last newline when that is past half; the <persisted-output> wrapper; CLAUDECODE=1 in every Bash shell',
  frame: ({ head, text }) =>
    `<persisted-output>\nOutput too large (${kb(Buffer.byteLength(text))}). Full output saved to: /home/user/.claude/projects/-home-user-project/00000000-0000-0000-0000-000000000000/tool-results/toolu_000000000000000000000000.txt\n\nPreview (first 2KB):\n${head}\n...\n</persisted-output>`,
};
