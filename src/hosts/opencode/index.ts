/**
 * OpenCode, as cg reaches it: through `cg wrap opencode` (wrap.ts), its anthropic provider pointed
 * at a loopback `cg proxy` for one run. cg installs no hook there yet. What its plugin hooks do was
 * checked on the pinned 1.18.33 with a plugin of its own in ~/.config/opencode/plugins/: the
 * runtime calls `tool.execute.after(input, output)` after its bash tool, with `input.args.command`,
 * `output.metadata.exit` (the exit code) and `output.metadata.output` (the whole output), and the
 * model reads whatever the plugin leaves in `output.output` — so a plugin calling `cg hook opencode`
 * would be a real integration; it is not built yet, and `cg doctor` says so.
 *
 * What OpenCode itself shows of a long output (its ToolOutputStore): at most 2,000 lines and
 * 51,200 bytes (`tool_output.max_lines` / `max_bytes` change them); for bash the tail is kept
 * under "...output truncated..." and the path of a file holding the whole. Through cg wrap the
 * proxy only ever sees that cut, so what the model reads is never more than OpenCode would show.
 */

import type { WrapHost } from '../wrap.js';
import { OPENCODE_WRAP } from './wrap.js';

/** A host cg reaches by `cg wrap` only: its wrap row, and for `cg doctor` which door reaches it. */
export interface WrapOnlyHost {
  name: 'opencode';
  title: string;
  wrap: WrapHost;
  /** Which door reaches the host and what is not built, one line. */
  doors: string;
}

export const OPENCODE: WrapOnlyHost = {
  name: 'opencode',
  title: 'OpenCode',
  wrap: OPENCODE_WRAP,
  doors:
    'no cg hook: its plugin hook tool.execute.after does fire and can replace a bash output (checked on 1.18.33), but cg installs no plugin yet; `cg wrap opencode` shortens every output of its anthropic provider, failing runs too',
};
