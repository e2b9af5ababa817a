/**
 * What Codex 0.171.0 shows the model of a long command output: every model of its bundled
 * catalogue has truncation_policy {mode: tokens, limit: 10000} (all 14 entries checked); a token
 * is taken as 4 bytes (codex-rs/utils/string approx_bytes_for_tokens), so 40,000 bytes are kept,
 * half from each end around `…N tokens truncated…`, under `Total output lines: N`. Codex's guess
 * is cg's own estimate (tokens.ts, ceil(bytes / 4)), so the frame's N is asked of tokens.ts.
 */
import { estimateTokens } from '../../tokens.js';
import type { HostLimit } from '../limits.js';

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

export const CODEX_LIMIT: HostLimit = {
  inline: 40_000,
  unit: 'bytes',
  keep: { head: 20_000, tail: 20_000 },
  source:
    '@openai/codex@0.171.0: every model in its bundled catalogue has truncation_policy {mode: tokens, limit: 10000}; a token is taken as 4 bytes (codex-rs/utils/string approx_bytes_for_tokens), so 40,000 bytes, half from each end around "…N tokens truncated…", under "Total output lines: N" (older releases cut to 10 KiB)',
  frame: ({ head, tail, text }) =>
    `Total output lines: ${lineCount(text)}\n${head}…${estimateTokens(Buffer.byteLength(text) - Buffer.byteLength(head) - Buffer.byteLength(tail))} tokens truncated…${tail}`,
};
