import { defineConfig } from 'vitest/config';

// The real-client suite (npm run test:proxy-clients): slow, needs the clients installed and a
// loopback-only network namespace, so it is kept out of `npm test`.
export default defineConfig({
  test: {
    include: ['test/proxy/*.real.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
    // What each file's tempDir() calls made is removed after it, as in npm test.
    setupFiles: [new URL('../setup/temp-dirs.ts', import.meta.url).pathname],
  },
});
