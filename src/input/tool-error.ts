/**
 * Whether a tool output reports a failed command, for formats whose results carry no error flag
 * (OpenAI Chat Completions, Responses: Codex). Codex writes the exit status into the text it
 * returns: a header line `Exit code: N` (shell tool) or `Process exited with code N` (unified exec)
 * before the output, or `"exit_code": N` in the metadata of a JSON-wrapped result. A non-zero N is
 * an error, the same thing Claude Code's `is_error` says; anything else is not. Only the header
 * (the lines before `Output:`) is looked at, so an exit-code line inside the output itself is the
 * output's business.
 */

/** How far into the text the header lines reach. */
const HEAD_CHARS = 512;
const EXIT_LINE = /^(?:Exit code: |Process exited with code )(-?\d+)\s*$/m;
const JSON_EXIT = /"exit_code"\s*:\s*(-?\d+)/;

const OUTPUT_HEADER = /^Output:\r?$/m;

export function reportsFailure(text: string): boolean {
  const head = text.slice(0, HEAD_CHARS);
  const body = OUTPUT_HEADER.exec(head);
  const line = body ? EXIT_LINE.exec(head.slice(0, body.index)) : null;
  if (line) return Number(line[1]) !== 0;
  if (text.startsWith('{"output":')) {
    // The metadata follows the output string: look at the end, where the wrapper closes.
    const json = JSON_EXIT.exec(text.slice(-HEAD_CHARS));
    if (json) return Number(json[1]) !== 0;
  }
  return false;
}
