/**
 * OpenCode's bash tool as its `tool.execute.after` plugin hook sees it (checked on 1.18.33):
 * `output.output` is what the model reads — the command's output (or `(no output)`), then, after
 * a blank line, a `<shell_metadata>` block when it timed out or was aborted; `output.metadata`
 * holds `exit` (the exit code, null when killed), `truncated` and, for a cut output, `outputPath`,
 * the file holding the whole. cg compacts the whole output (read from that file when OpenCode cut
 * it) and keeps the metadata block byte for byte; a run whose exit is not 0 goes through the
 * tool-error gates (verbatim, or only a filter proven to keep every failure line). Other tools
 * (read, grep, glob) answer in shapes of their own and are left to `cg wrap opencode`.
 */
import { objectAt, stringAt } from '../../json/payload.js';
import type { Replaceable, ToolShape } from '../host.js';

/** Where OpenCode appends its note on a timed-out or aborted command. */
const METADATA = '\n\n<shell_metadata>\n';

const BASH: ToolShape = {
  tools: ['bash'],
  read(response, input, files): Replaceable | undefined {
    const shown = stringAt(response, 'output');
    const meta = objectAt(response, 'metadata') ?? {};
    if (shown === undefined) return undefined;
    const at = shown.indexOf(METADATA);
    const trailer = at >= 0 ? shown.slice(at) : '';
    const path = typeof meta.outputPath === 'string' ? meta.outputPath : undefined;
    const whole =
      meta.truncated === true
        ? path !== undefined
          ? files(path)
          : undefined
        : shown.slice(0, at >= 0 ? at : undefined);
    if (whole === undefined || whole === '(no output)') return undefined;
    const command = stringAt(input, 'command');
    return {
      texts: [
        {
          text: whole,
          ...(command !== undefined ? { command } : {}),
          ...(meta.exit !== 0 ? { isError: true } : {}),
        },
      ],
      rebuild: ([out]) => `${out}${trailer}`,
    };
  },
  // The plugin sets output.output to this text.
  answer: (updated) => (typeof updated === 'string' ? { output: updated } : undefined),
};

export const OPENCODE_TOOLS: readonly ToolShape[] = [BASH];
