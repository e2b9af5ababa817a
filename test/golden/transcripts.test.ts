/**
 * Cache-stable replay on real Claude Code sessions (issue 5's acceptance figures): every session but
 * the second large one, which runs in transcripts-large.test.ts so the two large ones run in parallel.
 */
import { LARGE, replayTests } from './transcripts-replay.js';

replayTests((name) => name !== LARGE[1]);
