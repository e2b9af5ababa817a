/**
 * What OpenCode 1.18.33 shows the model of a long bash output (its ToolOutputStore, read in the
 * binary: `f=es(output, maxLines, maxBytes)`): at most 2,000 lines and 51,200 bytes
 * (`tool_output.max_lines` / `max_bytes` change them), the tail kept, under
 * `...output truncated...` and the path of a file holding the whole. Only the byte cap is modelled
 * here: an output of many short lines is cut by OpenCode at 2,000 lines, earlier than this says.
 */
import type { HostLimit } from '../limits.js';

export const OPENCODE_LIMIT: HostLimit = {
  inline: 51_200,
  unit: 'bytes',
  keep: { head: 0, tail: 51_200 },
  source:
    'opencode-ai@1.18.33: tool_output.max_lines 2000 / max_bytes 51200 (the tail kept for bash), "...output truncated...\\n\\nFull output saved to: PATH"; OPENCODE=1 in every shell it runs',
  frame: ({ tail }) =>
    `...output truncated...\n\nFull output saved to: /home/user/.local/share/opencode/tool-output/tool_00000000000000000000000000\n\n${tail}`,
};
