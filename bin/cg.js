#!/usr/bin/env node
// Launcher: the CLI lives in one bundle so start-up reads a few files, not a module tree.
import { main } from '../dist/cli.js';

// How a failed write to stdout ends cg. A reader that stops early (`cg --help | head`) closes the
// pipe: end quietly, like any Unix filter, with the exit code already set (cg run: the command's).
// Any other failure (disk full, I/O error) is one line and a non-zero exit (cg run keeps a failing
// command's own code) — unless a handler that takes over (cg run, while the command still runs)
// marked the error handled.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  if (err.handled) return;
  process.stderr.write(`cg: cannot write output: ${err.message}\n`);
  process.exit(process.exitCode || 1);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`cg: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
