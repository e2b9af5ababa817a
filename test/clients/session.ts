/**
 * The scripted session of issue 15, host-neutral: what the model runs, step by step. Each host's
 * suite maps a step to its own tool call (Claude Code's Bash/Read, Codex's exec_command, Gemini's
 * run_shell_command/read_file) and its MCP tool name for cg_expand. The cg_expand step asks for the
 * first marker the client has sent back so far (without cg there is none: a key that is not stored).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Call, Script } from './fake-model.js';

export type Step =
  | { label: string; kind: 'shell'; command: string }
  | { label: string; kind: 'read'; path: string }
  | { label: string; kind: 'expand' };

export const SESSION: readonly Step[] = [
  { label: 'python3 -m pytest -v (failing)', kind: 'shell', command: 'python3 -m pytest -v' },
  { label: 'git status', kind: 'shell', command: 'git status' },
  { label: 'git log -p -n 20', kind: 'shell', command: 'git log -p -n 20' },
  { label: 'cd sub && pytest -q (failing)', kind: 'shell', command: 'cd sub && pytest -q' },
  { label: 'grep -rn', kind: 'shell', command: 'grep -rn "step_" src' },
  { label: 'cat a large log', kind: 'shell', command: 'cat logs/app.log' },
  { label: 'read a 600-line source file', kind: 'read', path: 'src/big.py' },
  { label: 'MCP cg_expand', kind: 'expand' },
  { label: 'python3 -m pytest -v again', kind: 'shell', command: 'python3 -m pytest -v' },
];

/** A key no store holds: the cg_expand step's argument when no marker has been seen. */
export const ABSENT_KEY = '0000000000000000';

export function firstMarker(results: readonly string[]): string | undefined {
  for (const r of results) {
    const m = /<<cg:([0-9a-f]{16})>>/.exec(r);
    if (m) return m[1];
  }
  return undefined;
}

export interface HostCalls {
  shell(command: string): Call;
  read(path: string): Call;
  expand(key: string): Call;
}

/** The fake model's script for a host: the session's steps as that host's calls, then done. */
export function scriptFor(steps: readonly Step[], calls: HostCalls, cwd: string): Script {
  return (step, results) => {
    const s = steps[step];
    if (!s) return undefined;
    if (s.kind === 'shell') return calls.shell(s.command);
    if (s.kind === 'read') return calls.read(join(cwd, s.path));
    return calls.expand(firstMarker(results) ?? ABSENT_KEY);
  };
}

/** What a step's command really prints, for checking an expansion (pytest's timings normalised). */
export function normaliseTimings(text: string): string {
  return text.replace(/ in \d+\.\d+s\b/g, ' in N.NNs');
}

export function fileText(cwd: string, path: string): string {
  return readFileSync(join(cwd, path), 'utf8');
}
