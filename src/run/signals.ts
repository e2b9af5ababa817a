/**
 * Relays the signals cg gets to the command's whole process group, so `kill -TERM <cg>` or an
 * agent host's timeout ends every process the command started, not just the first.
 *
 * The command runs detached (its own session and process group), so it is never in the terminal's
 * foreground group: Ctrl-C, Ctrl-\ and a hang-up reach cg alone, and cg passes each on exactly
 * once. Job control is relayed too: Ctrl-Z (SIGTSTP) stops the group, then cg itself; `fg`/`bg`
 * (SIGCONT to cg) continue the group. The group gets SIGSTOP rather than SIGTSTP because a group
 * whose parent lives in another session is orphaned, and the kernel drops SIGTSTP sent to one.
 */

const RELAYED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;

/** Sends a signal to a process group; false if the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export interface Relay {
  /** The group to relay to, once it exists; signals that came before it are sent now, in order. */
  to(pgid: number): void;
  /** Removes the relay's handlers. */
  remove(): void;
}

/**
 * Installs the relay before the command is spawned, so no signal finds cg without it: on a busy
 * machine the command can be running (and an agent host's Ctrl-C or timeout can come) before the
 * line after spawn() runs, and a signal then would end cg and leave the command behind. A signal
 * that comes before the group is known waits for to() (a SIGCONT then has nothing to continue).
 */
export function relaySignals(): Relay {
  let group: number | undefined;
  const early: NodeJS.Signals[] = [];
  const send = (sig: NodeJS.Signals) => {
    if (group === undefined) {
      if (sig !== 'SIGCONT') early.push(sig);
      return;
    }
    if (sig === 'SIGTSTP') {
      signalGroup(group, 'SIGSTOP');
      process.kill(process.pid, 'SIGSTOP');
    } else signalGroup(group, sig);
  };
  const handlers = [...RELAYED, 'SIGTSTP', 'SIGCONT'].map(
    (sig) => [sig, () => send(sig as NodeJS.Signals)] as const,
  );
  for (const [sig, h] of handlers) process.on(sig, h);
  return {
    to(pgid) {
      group = pgid;
      for (const sig of early.splice(0)) send(sig);
    },
    remove() {
      for (const [sig, h] of handlers) process.off(sig, h);
      // No command ever started to take it: the signal does to cg what it would have done.
      const unsent = group === undefined ? early.find((sig) => sig !== 'SIGTSTP') : undefined;
      if (unsent) process.kill(process.pid, unsent);
    },
  };
}
