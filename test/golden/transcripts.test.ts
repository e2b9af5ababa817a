/**
 * Cache-stable replay on real Claude Code sessions (issue 5's acceptance figures): every session but
 * the two large ones, which replay in transcripts-large.slow.test.ts (npm run test:slow).
 */
import { LARGE, replayTests } from './transcripts-replay.js';

replayTests((name) => !LARGE.includes(name));
