/**
 * What OpenCode 1.18.33 shows the model of a long bash output (its shell tool, read in the binary:
 * `f=es(output, maxLines, maxBytes)`): past 2,000 lines (as `split('\n')` counts them) or 51,200
 * bytes (`tool_output.max_lines` / `max_bytes` change them), the last whole lines that fit both,
 * joined by '\n' — only a last line longer than 51,200 bytes alone is cut, to its tail on a
 * character boundary — under `...output truncated...` and the path of a file holding the whole.
 */
import type { HostLimit } from '../limits.js';

export const OPENCODE_LIMIT: HostLimit = {
  inline: 51_200,
  unit: 'bytes',
  keep: { head: 0, tail: 51_200 },
  lines: 2_000,
  source:
    'opencode-ai@1.18.33: tool_output.max_lines 2000 / max_bytes 51200 (the tail kept for bash), "...output truncated...\\n\\nFull output saved to: PATH"; OPENCODE=1 in every shell it runs',
  frame: ({ tail }) =>
    `...output truncated...\n\nFull output saved to: /home/user/.local/share/opencode/tool-output/tool_00000000000000000000000000\n\n${tail}`,
};
