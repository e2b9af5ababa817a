/**
 * What a user sees for a mistake in a config or filter file: one line with the file, the dotted
 * path and the reason — for a typo, the key it was probably meant to be — and exit 2, the input
 * passed through untouched.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { cg, seq } from './run-cg.js';

describe('config file mistakes', () => {
  it.each([
    [
      'a mistyped component setting',
      'components:\n  collapse:\n    head_line: 5\n',
      'components.collapse.head_line: unknown key (did you mean head_lines?) (known: max_tokens, head_lines, tail_lines, max_line_chars)',
    ],
    [
      'a mistyped component name',
      'components:\n  summarise: {}\n',
      'components.summarise: unknown key (did you mean summarize?)',
    ],
    [
      'a mistyped store key',
      'store:\n  ttl_dyas: 3\n',
      'store.ttl_dyas: unknown key (did you mean ttl_days?)',
    ],
    [
      'a bad value in a nested section',
      'components:\n  summarize:\n    trigger: { min_messages: many }\n',
      'components.summarize.trigger.min_messages: expected an integer ≥ 0, got "many"',
    ],
  ])('exits 2 naming the file, the path and the nearest key for %s', (_, text, reason) => {
    const dir = tempDir();
    const file = join(dir, 'cg.yaml');
    writeFileSync(file, text);
    const r = cg(['--config', file], { input: seq(3) });
    expect(r.code).toBe(2);
    expect(r.out).toBe(seq(3));
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr.startsWith(`cg: ${file}: ${reason}`)).toBe(true);
  });
});
