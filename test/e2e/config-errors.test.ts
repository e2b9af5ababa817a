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

describe('a file that is not a cg config or filter file at all', () => {
  // Shaped like /etc/shadow, a credentials JSON and an env file: each parses as a YAML mapping whose
  // keys (or values) are the secrets.
  const files: [string, string][] = [
    ['a shadow file', 'root:$6$saltsalt$c2VjcmV0aGFzaA:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n'],
    ['a credentials JSON', '{"token": "ghp_s3cr3tT0ken", "user": "me"}\n'],
    ['an env file written as YAML', 'AWS_SECRET_ACCESS_KEY: wJalrXUtnFEMIK7MDENGbPxRfiCY\n'],
  ];

  it.each(files)('is refused as --config without a word of it (%s)', (_name, text) => {
    const file = join(tempDir(), 'not-a-config');
    writeFileSync(file, text);
    const r = cg(['expand', '0123456789abcdef', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `cg: ${file}: is not a cg config: none of its top-level keys is one (preset, components, store, tokenizer, model, filters, proxy)\n`,
    );
  });

  it.each(files)('is refused as --filters without a word of it (%s)', (_name, text) => {
    const file = join(tempDir(), 'not-filters.yaml');
    writeFileSync(file, text);
    const r = cg(['filters', 'list', '--filters', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^cg: ${file}: is not a cg filter file: none of its top-level keys is one`),
    );
    for (const secret of ['s3cr3t', 'saltsalt', 'wJalr', 'AWS_SECRET', 'root:'])
      expect(r.stderr).not.toContain(secret);
  });

  it('still names a mistyped top-level key of a real config, cut short when it is long', () => {
    const file = join(tempDir(), 'cg.yaml');
    writeFileSync(file, `stor:\n  ttl_days: 3\n`);
    expect(cg(['expand', '0123456789abcdef', '--config', file]).stderr).toMatch(
      /stor: unknown key \(did you mean store\?\)/,
    );
    writeFileSync(file, `store:\n  ttl_days: 3\n${'k'.repeat(500)}: 1\n`);
    const r = cg(['expand', '0123456789abcdef', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `cg: ${file}: ${'k'.repeat(40)}…: unknown key (known: preset, components, store, tokenizer, model, filters, proxy)\n`,
    );
  });
});
