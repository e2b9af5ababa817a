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

/** Installs the relay for the group led by `pgid`; returns the function that removes it. */
export function relaySignals(pgid: number): () => void {
  const handlers: [NodeJS.Signals, () => void][] = RELAYED.map((sig) => [sig, () => signalGroup(pgid, sig)]);
  handlers.push(
    [
      'SIGTSTP',
      () => {
        signalGroup(pgid, 'SIGSTOP');
        process.kill(process.pid, 'SIGSTOP');
      },
    ],
    ['SIGCONT', () => signalGroup(pgid, 'SIGCONT')],
  );
  for (const [sig, h] of handlers) process.on(sig, h);
  return () => {
    for (const [sig, h] of handlers) process.off(sig, h);
  };
}
