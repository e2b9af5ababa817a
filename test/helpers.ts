/**
 * Shared test helpers: build ToolOutputs and RunContexts without a transcript, find the shared
 * corpus (tests that need it skip cleanly on a bare clone), and make throwaway directories (removed
 * after each test file).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Candidate, RunContext } from '../src/component.js';
import type { ToolOutput } from '../src/input/transcript.js';
import { createTokens } from '../src/tokens.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CORPUS = resolve(ROOT, '../shared/corpus');
export const HAS_CORPUS = existsSync(CORPUS);

export function output(text: string, extra: Partial<ToolOutput> = {}): ToolOutput {
  return { id: 'stdin', text, rewritable: true, isError: false, messageIndex: 0, ...extra };
}

/** A tool output as a transcript component gets it; the gates let it change by default. */
export function candidate(text: string, extra: Partial<Candidate> = {}): Candidate {
  return { id: 'stdin', text, messageIndex: 0, mayChange: true, ...extra };
}

export function context(extra: Partial<RunContext> = {}): RunContext {
  return { tokens: createTokens('o200k'), format: 'text', messages: [], ...extra };
}

const made: string[] = [];

/** A fresh directory in the run's temp dir, removed after the test file (test/setup/temp-dirs.ts). */
export function tempDir(prefix = 'cg-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every directory tempDir() made in this file so far, and its siblings `${dir}.suffix`. */
export function removeTempDirs(): void {
  const dirs = made.splice(0);
  const siblings = new Set(dirs.map((d) => `${basename(d)}.`));
  const parent = tmpdir();
  let names: string[] = [];
  try {
    names = readdirSync(parent).filter((n) => siblings.has(n.slice(0, n.indexOf('.') + 1)));
  } catch {
    // the temp dir itself is gone: nothing of ours is left in it
  }
  for (const dir of [...dirs, ...names.map((n) => join(parent, n))])
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

export function corpusPath(...parts: string[]): string {
  return join(CORPUS, ...parts);
}

/** A seeded pseudo-random number in [0, 1): the same sequence on every run, so failures reproduce. */
export function seededRandom(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}
