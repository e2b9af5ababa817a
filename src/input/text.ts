/**
 * Raw text: the whole input is one tool output with id "stdin" (its command and path come from the
 * command line), and writing returns the rewrite, or the input itself when there is none.
 */

import type { ReadOptions, ToolOutput, Transcript } from './transcript.js';

export const TEXT_ID = 'stdin';

export function readText(raw: string, opts: ReadOptions): Transcript {
  const output: ToolOutput = {
    id: TEXT_ID,
    text: raw,
    rewritable: true,
    isError: opts.isError === true,
    messageIndex: 0,
  };
  if (opts.command !== undefined) output.command = opts.command;
  if (opts.path !== undefined) output.path = opts.path;
  if (opts.bytes !== undefined) output.bytes = opts.bytes;
  return {
    format: 'text',
    outputs: [output],
    messages: [{ role: 'tool', text: raw }],
    write: (rewrites) => rewrites.get(TEXT_ID) ?? raw,
  };
}
