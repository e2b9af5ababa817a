import { describe, expect, it } from 'vitest';
import { didYouMean, nearestNames } from '../../../src/config/nearest.js';

describe('did you mean', () => {
  it('suggests every name at the nearest distance within two edits, in the order given', () => {
    expect(didYouMean('claud', ['claude', 'codex', 'gemini'])).toBe(' (did you mean claude?)');
    expect(didYouMean('stast', ['stats', 'store'])).toBe(' (did you mean stats?)');
    expect(nearestNames('cg-x', ['cg-a', 'cg-b', 'cg-xyz'])).toEqual(['cg-a', 'cg-b']);
  });

  it('suggests nothing when more than half of the word would change', () => {
    expect(didYouMean('ls', ['list'])).toBe('');
    expect(didYouMean('ab', ['cd'])).toBe('');
    expect(didYouMean('xyzzy', ['expand', 'stats'])).toBe('');
  });
});
