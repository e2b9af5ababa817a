/**
 * Whether a person is there to give consent (DESIGN §1.8: trust is given by a person at a terminal,
 * never from inside an agent's tool call). `cg trust` asks this before it reads anything; `--show`
 * and `--untrust` do not (looking, and withdrawing consent, are harmless from anywhere).
 *
 * Two checks, each for a way agents run commands:
 * - stdin and stdout must be a terminal. Stdin is where a person types; an agent's tool gives a
 *   command a pipe or nothing there (Claude Code's Bash, Gemini CLI's shell, `</dev/null`, CI). Stdout
 *   is where trusting says what the project's config may now do — consent is to something seen.
 *   Stderr may go anywhere.
 * - no agent host's own marker may be set (each host's `agentEnv`, src/hosts/): a host that runs
 *   commands in a pseudo-terminal (Codex's exec_command with tty: true) passes the first check.
 *
 * This stops an agent that is told, by a file in the repository, to run `cg trust`. It cannot stop
 * one set on faking a person (unsetting the markers, making its own pty) — such an agent can as well
 * edit the user's own config — and there is deliberately no variable that skips it.
 */
import { HOSTS } from '../hosts/index.js';

/** What is known about who runs this process. */
export interface Presence {
  env: NodeJS.ProcessEnv;
  isTerminal(fd: 0 | 1): boolean;
}

/** This process as it is. */
export async function processPresence(env: NodeJS.ProcessEnv = process.env): Promise<Presence> {
  const { isTerminal } = await import('../terminal.js');
  return { env, isTerminal };
}

const IN_OWN_SHELL = 'trusting a project is for a person at a terminal; run `cg trust` in your own shell';

/** Why consent cannot be given here (one line), or undefined when a person can give it. */
export function whyNoPerson(p: Presence): string | undefined {
  for (const host of HOSTS) {
    const marker = host.agentEnv.find((name) => (p.env[name] ?? '') !== '');
    if (marker) return `refusing inside ${host.title}'s tool call (${marker} is set): ${IN_OWN_SHELL}`;
  }
  const missing = (
    [
      [0, 'stdin'],
      [1, 'stdout'],
    ] as const
  )
    .filter(([fd]) => !p.isTerminal(fd))
    .map(([, name]) => name);
  if (missing.length > 0)
    return `refusing without a terminal (${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not one): ${IN_OWN_SHELL}`;
  return undefined;
}
