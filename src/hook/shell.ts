/** The shell reader moved to src/shell/parse.ts (the pipeline's gates use it too); hook code may import either. */
export * from '../shell/parse.js';
