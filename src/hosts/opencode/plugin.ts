/**
 * The plugin `cg init opencode` writes (plugins/cg.js in OpenCode's config directory), whole: the
 * file is cg's own, so cg recognises it by its first line and never writes over a file that lacks
 * it. OpenCode 1.18.33 loads every `{plugin,plugins}/*.{js,ts}` of its config directories and calls
 * each exported function's `tool.execute.after(input, output)` after a tool ran; the model reads
 * whatever is in `output.output` then (checked in the binary and in test/clients). The plugin hands
 * a bash call to `cg hook opencode` as one JSON payload on stdin and, when cg answers
 * `{"output": …}`, puts that text there. It fails open: cg not starting, exiting non-zero, taking
 * over 10 s, answering nothing or anything but that shape leaves the output as OpenCode made it.
 */

/** The first line of every plugin file cg writes. */
const HEADER =
  "// cg's OpenCode plugin, written by `cg init opencode` (`cg init opencode --uninstall` removes it).";

const COMMAND_LINE = /^const COMMAND = (".*");$/m;

/** The plugin running `invocation hook opencode` (invocation: cg by absolute path, shell-quoted). */
export function pluginText(invocation: string): string {
  return `${HEADER}
// After a bash call it asks cg for a shorter text for the model; any failure leaves the output as it was.
import { spawn } from 'node:child_process';

const COMMAND = ${JSON.stringify(`${invocation} hook opencode`)};
const TOOLS = new Set(['bash']);
const TIMEOUT_MS = 10000;

/** cg's answer to one payload, or undefined. */
function ask(payload) {
  return new Promise((resolve) => {
    let out = '';
    let done = false;
    let timer;
    const finish = (value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(value);
    };
    let child;
    try {
      child = spawn('/bin/sh', ['-c', COMMAND], { stdio: ['pipe', 'pipe', 'ignore'] });
    } catch {
      resolve(undefined);
      return;
    }
    timer = setTimeout(() => {
      try {
        child.kill('SIGKILL');
      } catch {}
      finish(undefined);
    }, TIMEOUT_MS);
    child.on('error', () => finish(undefined));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('close', (code) => finish(code === 0 ? out : undefined));
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export const CgPlugin = async ({ directory }) => ({
  'tool.execute.after': async (input, output) => {
    try {
      if (!TOOLS.has(input?.tool) || typeof output?.output !== 'string') return;
      const args = input.args ?? {};
      const answer = await ask({
        hook_event_name: 'tool.execute.after',
        session_id: input.sessionID,
        cwd: typeof args.workdir === 'string' && args.workdir !== '' ? args.workdir : directory,
        tool_name: input.tool,
        tool_input: args,
        tool_response: { output: output.output, metadata: output.metadata ?? {} },
      });
      if (!answer || answer.trim() === '') return;
      const replaced = JSON.parse(answer).output;
      if (typeof replaced === 'string' && replaced !== '') output.output = replaced;
    } catch {}
  },
});
`;
}

/** The `cg hook opencode` command in a plugin file cg wrote, or undefined for any other file. */
export function pluginCommand(text: string): string | undefined {
  if (!text.startsWith(HEADER)) return undefined;
  const m = COMMAND_LINE.exec(text);
  if (!m) return undefined;
  try {
    const command: unknown = JSON.parse(m[1]!);
    return typeof command === 'string' ? command : undefined;
  } catch {
    return undefined;
  }
}
