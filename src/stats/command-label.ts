/**
 * How commands are grouped in `cg stats`: by program and subcommand, not by the full command line,
 * so `pytest -x tests/a.py` and `pytest tests/b.py` are one row (`pytest`), and `git status -s` is
 * `git status`. Leading VAR=value assignments and wrappers (sudo, env, time, nohup, command, exec)
 * are dropped, the program loses its directory, and the second word is kept only when it looks like
 * a subcommand (a plain word: no option dash, path, dot or quote). The ledger keeps the raw command
 * (capped), so this grouping can change without touching recorded data.
 */
const WRAPPERS = new Set(['sudo', 'env', 'time', 'nohup', 'command', 'exec']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const SUBCOMMAND = /^[A-Za-z][A-Za-z0-9:_-]*$/;

export const NO_COMMAND = '(no command)';

const cache = new Map<string, string>();

export function commandLabel(command: string | undefined): string {
  if (!command) return NO_COMMAND;
  let label = cache.get(command);
  if (label === undefined) {
    label = compute(command);
    if (cache.size < 10_000) cache.set(command, label);
  }
  return label;
}

function compute(command: string): string {
  const firstLine = command.trim().split('\n', 1)[0] ?? '';
  const words = firstLine.split(/\s+/).filter(Boolean);
  let i = 0;
  while (i < words.length && (ASSIGNMENT.test(words[i]!) || WRAPPERS.has(words[i]!))) i++;
  const program = words[i]?.replace(/^.*\//, '').replace(/^["']|["']$/g, '');
  if (!program) return NO_COMMAND;
  const next = words[i + 1];
  return next && SUBCOMMAND.test(next) ? `${program} ${next}` : program;
}
