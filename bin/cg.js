#!/usr/bin/env node
// Launcher: the CLI lives in one bundle so start-up reads a few files, not a module tree.
import { main } from '../dist/cli.js';

// A reader that stops early (`cg --help | head`) closes the pipe: end quietly, like any Unix filter.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
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
