import { configDefaults, defineConfig } from 'vitest/config';

// Two projects: `fast` is what `npm test` runs (a cross-section of every module, minutes on a
// 2-core machine); `slow` is every *.slow.test.ts (memory bounds, large inputs, corpus sweeps,
// Redis, the haproxy fleet, Chromium, the biggest goldens), run by `npm run test:slow`; CI and
// `npm run test:all` run both. Every run has its own HOME/XDG/TMPDIR (test/setup/private-home.ts).
const SLOW = 'test/**/*.slow.test.ts';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is cores − 1, one worker on a 2-core machine, where most test time is waiting
    // on spawned cg processes: two workers keep both cores busy (npm test 280 s → ~180 s here).
    // test:slow passes --maxWorkers=1 (its memory and size bounds measure one process at a time).
    maxWorkers: 2,
    globalSetup: ['test/setup/private-home.ts'],
    setupFiles: ['test/setup/temp-dirs.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, SLOW] },
      },
      { extends: true, test: { name: 'slow', include: [SLOW] } },
    ],
  },
});
