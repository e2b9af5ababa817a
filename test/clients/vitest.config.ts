import { defineConfig } from 'vitest/config';

// The real-client suite: run by `npm run test:clients` (run.mjs) inside a loopback-only network
// namespace; `npm test` never picks these files up (they end in .clients.ts).
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/clients/**/*.clients.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: false,
    // What each file's tempDir() calls made is removed after it, as in npm test.
    setupFiles: [new URL('../setup/temp-dirs.ts', import.meta.url).pathname],
  },
});
