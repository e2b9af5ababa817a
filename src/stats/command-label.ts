/**
 * How commands are grouped in `cg stats`: by program and subcommand, not by the full command line,
 * so `pytest -x tests/a.py` and `pytest tests/b.py` are one row (`pytest`), and `git status -s` is
 * `git status`. What a command runs is programOf's answer (src/shell/program.ts): past `cd x &&`,
 * assignments, wrappers such as sudo and env, and launchers such as `python -m` and npx. The ledger
 * keeps the raw command (capped), so this grouping can change without touching recorded data.
 */
import { programOf } from '../shell/program.js';

export const NO_COMMAND = '(no command)';

const cache = new Map<string, string>();

export function commandLabel(command: string | undefined): string {
  if (!command) return NO_COMMAND;
  let label = cache.get(command);
  if (label === undefined) {
    label = programOf(command)?.label ?? NO_COMMAND;
    if (cache.size < 10_000) cache.set(command, label);
  }
  return label;
}
