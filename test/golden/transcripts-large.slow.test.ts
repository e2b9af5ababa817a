/** The two large spotter sessions of transcripts.test.ts: slow (seconds each), so in test:slow. */
import { LARGE, replayTests } from './transcripts-replay.js';

replayTests((name) => LARGE.includes(name));
