// Which code cache a command line reads (bin/cg.js) and which the build trains it on
// (scripts/code-cache.mjs): the commands started most have one of their own, trained on that
// command alone; undefined means the general one (dist/cli.cjs.cache).
'use strict';

/** The commands with a code cache of their own. */
const CACHE_KINDS = ['pipe', 'hook', 'expand', 'run', 'version'];

/** The cache kind of a command line (argv without node and the script), or undefined. */
function cacheKind(argv) {
  const [first] = argv;
  if (first === undefined) return 'pipe';
  if (first === 'hook' || first === 'expand' || first === 'run') return first;
  if (argv.length === 1 && (first === '--version' || first === '-V')) return 'version';
  return undefined;
}

module.exports = { CACHE_KINDS, cacheKind };
