/**
 * globalSetup: every test run gets its own HOME, XDG_*_HOME and TMPDIR under one run directory,
 * set before the test workers start (they, and every cg they spawn, inherit them), and removed
 * after. A run FAILS if, at its end:
 *  - a test file left a directory from tempDir() in the run's temp dir (each file removes its own:
 *    test/setup/temp-dirs.ts), or
 *  - anything new named cg-* appeared in the real temp dir, or anything in the user's real cg state
 *    (~/.local/state/cg, ~/.cache/cg, ~/.config/cg, or their XDG locations) was added or changed.
 * The last check compares snapshots, so another cg run on the same machine at the same time (one
 * without this setup) would be blamed too: give such a run its own HOME and TMPDIR.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

const VARS = [
  'CG_TEST_RUN_DIR',
  'HOME',
  'TMPDIR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_CACHE_HOME',
];

/** Every path under `dir` with its size and mtime: what "changed" means for the user's state. */
function snapshot(dir: string, into = new Map<string, string>()): Map<string, string> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return into; // absent: nothing to compare but its later appearance
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      into.set(path, st.isDirectory() ? 'dir' : `${st.size}:${st.mtimeMs}`);
      if (st.isDirectory()) snapshot(path, into);
    } catch {
      // removed while we looked
    }
  }
  return into;
}

function cgEntries(dir: string): Set<string> {
  try {
    return new Set(readdirSync(dir).filter((n) => n.startsWith('cg-')));
  } catch {
    return new Set();
  }
}

export default function setup(): () => void {
  // Each vitest project runs its globalSetup: the first one sets the run up for all.
  if (process.env.CG_TEST_RUN_DIR) return () => {};
  const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
  const realTmp = tmpdir();
  const home = process.env.HOME || homedir();
  const stateDirs = [
    join(process.env.XDG_STATE_HOME || join(home, '.local', 'state'), 'cg'),
    join(process.env.XDG_CACHE_HOME || join(home, '.cache'), 'cg'),
    join(process.env.XDG_CONFIG_HOME || join(home, '.config'), 'cg'),
  ];
  const before = stateDirs.map((d) => snapshot(d));
  const tmpBefore = cgEntries(realTmp);

  const run = mkdtempSync(join(realTmp, 'cg-testrun-'));
  const dirs: Record<string, string> = {
    HOME: join(run, 'home'),
    TMPDIR: join(run, 'tmp'),
    XDG_CONFIG_HOME: join(run, 'home', '.config'),
    XDG_DATA_HOME: join(run, 'home', '.local', 'share'),
    XDG_STATE_HOME: join(run, 'home', '.local', 'state'),
    XDG_CACHE_HOME: join(run, 'home', '.cache'),
  };
  for (const [v, dir] of Object.entries(dirs)) {
    mkdirSync(dir, { recursive: true });
    process.env[v] = dir;
  }
  process.env.CG_TEST_RUN_DIR = run;

  return () => {
    const problems: string[] = [];
    const left = [...cgEntries(dirs.TMPDIR as string)].filter((n) => n.startsWith('cg-test-'));
    if (left.length > 0)
      problems.push(`${left.length} tempDir() directories not removed (${left.slice(0, 3).join(', ')}…)`);
    for (const [v, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[v];
      else process.env[v] = value;
    }
    rmSync(run, { recursive: true, force: true });
    // A cg build running beside the tests (another checkout's `npm run build`) trains its code cache
    // in a cg-code-cache-* dir of its own, `npm run bench` works in cg-bench-* dirs and another
    // checkout's test run in its own cg-testrun-* dir, each removed when it ends; none is these
    // tests' doing (a test's own bench run gets the private TMPDIR).
    const others = ['cg-code-cache-', 'cg-bench-', 'cg-testrun-'];
    const leaked = [...cgEntries(realTmp)].filter(
      (n) => !tmpBefore.has(n) && !others.some((p) => n.startsWith(p)),
    );
    if (leaked.length > 0) problems.push(`new in ${realTmp}: ${leaked.slice(0, 5).join(', ')}`);
    stateDirs.forEach((dir, i) => {
      const was = before[i] as Map<string, string>;
      const changed = [...snapshot(dir)].filter(([p, s]) => was.get(p) !== s).map(([p]) => p);
      if (changed.length > 0)
        problems.push(`the user's state was written: ${changed.slice(0, 5).join(', ')}`);
      else if (!existsSync(dir) && was.size > 0) problems.push(`the user's state was removed: ${dir}`);
    });
    if (problems.length === 0) return;
    // vitest reports an error thrown here but still exits 0: set the exit code ourselves.
    process.exitCode = 1;
    throw new Error(`the tests touched what is not theirs:\n  ${problems.join('\n  ')}`);
  };
}
