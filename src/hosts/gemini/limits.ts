/**
 * What Gemini CLI 0.61.0 shows the model of a long tool output: tools.truncateToolOutputThreshold,
 * default 40,000 characters (DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD = 4e4); formatTruncatedToolOutput
 * keeps the first 20 % and the last 80 % of it and saves the whole to a file.
 */
import type { HostLimit } from '../limits.js';

export const GEMINI_LIMIT: HostLimit = {
  inline: 40_000,
  unit: 'chars',
  keep: { head: 8_000, tail: 32_000 },
  source:
    '@google/gemini-cli@0.61.0: tools.truncateToolOutputThreshold, default 40000 chars; formatTruncatedToolOutput keeps the first 20% and the last 80% and saves the whole to a file; GEMINI_CLI=1 in every shell',
  frame: ({ head, tail, text }) =>
    `Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /home/user/.gemini/tmp/0000000000000000000000000000000000000000000000000000000000000000/tool-outputs/session-00000000/run_shell_command_0000000000000.txt\n${head}\n\n... [${(text.length - head.length - tail.length).toLocaleString('en-US')} characters omitted] ...\n\n${tail}`,
};
