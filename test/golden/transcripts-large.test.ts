/** The second large spotter session, in a file of its own so it replays in parallel with the rest. */
import { LARGE, replayTests } from './transcripts-replay.js';

replayTests((name) => name === LARGE[1]);
