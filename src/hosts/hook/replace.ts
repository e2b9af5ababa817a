/**
 * The hook handler of a host that lets cg replace a tool's output after it ran (Claude Code's
 * PostToolUse, Gemini CLI's AfterTool): the host's tool shapes and the replacement machinery
 * (output.ts) are loaded only when a payload arrives, so a host row stays cheap to load.
 */
import type { HookHandler, ToolShape } from '../host.js';

export function replaceOutput(shapes: () => Promise<readonly ToolShape[]>): HookHandler {
  return async (payload, ctx) => {
    const [{ answerToolResult }, tools] = await Promise.all([import('./output.js'), shapes()]);
    return answerToolResult(tools, payload, ctx);
  };
}
