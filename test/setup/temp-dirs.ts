/**
 * setupFiles: after each test file, remove every directory its tempDir() calls made (test/helpers.ts
 * registers them), so a run leaves nothing behind and private-home.ts can fail one that does.
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from '../helpers.js';

afterAll(() => removeTempDirs());
