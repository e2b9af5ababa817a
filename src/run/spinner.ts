/**
 * The progress line `cg run` shows on a terminal while the command runs: a spinner, the command,
 * elapsed time and lines so far, redrawn in place on stderr. Only ever started when stderr is a
 * TTY (an agent's pipe never sees it); stop() erases it so the real output starts clean.
 */

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Spinner {
  stop(): void;
}

export function startSpinner(
  label: string,
  progress: { readonly lines: number },
  stream: NodeJS.WriteStream = process.stderr,
): Spinner {
  const started = Date.now();
  let frame = 0;
  const width = Math.max(20, (stream.columns ?? 80) - 1);
  const draw = () => {
    const { lines } = progress;
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    const text = `${FRAMES[frame++ % FRAMES.length]} ${label} · ${secs}s · ${lines.toLocaleString('en-US')} lines`;
    stream.write(`\r\x1b[K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
  };
  const timer = setInterval(draw, 100);
  timer.unref();
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write('\r\x1b[K');
    },
  };
}
