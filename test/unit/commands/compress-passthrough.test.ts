import { afterEach, describe, expect, it, vi } from 'vitest';
import { compactAndWrite } from '../../../src/commands/compact-and-write.js';
import { defaultConfig } from '../../../src/config.js';

const written = vi.hoisted(() => [] as (string | Uint8Array)[]);
vi.mock('../../../src/io.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src/io.js')>();
  return {
    ...actual,
    writeOut: async (data: string | Uint8Array) => {
      written.push(data);
    },
  };
});

afterEach(() => {
  written.length = 0;
  vi.restoreAllMocks();
});

describe('compactAndWrite with nothing to run', () => {
  it('writes the input bytes back without decoding them under --preset off', async () => {
    const input = Buffer.from('{\n  "a": 1\n}\nnaïve line\n'.repeat(1000), 'utf8');
    const decode = vi.spyOn(input, 'toString');
    const report = await compactAndWrite({ bytes: input }, { preset: 'off', store: false }, defaultConfig());
    expect(written).toEqual([input]);
    expect(decode).not.toHaveBeenCalled();
    expect(report).toMatchObject({ changed: false, events: [] });
  });

  it('still decodes and plans under --verbose, which reports what was detected', async () => {
    const input = Buffer.from('plain text\n', 'utf8');
    const decode = vi.spyOn(input, 'toString');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await compactAndWrite({ bytes: input }, { preset: 'off', store: false, verbose: true }, defaultConfig());
    expect(decode).toHaveBeenCalled();
    expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toContain('text input; preset off');
    expect(written).toEqual([input]);
  });

  it('still checks a forced request format against the input', async () => {
    const input = Buffer.from('not a request body\n', 'utf8');
    const report = await compactAndWrite(
      { bytes: input },
      { preset: 'off', store: false, format: 'anthropic' },
      defaultConfig(),
    );
    expect(report?.error?.message).toContain('not valid JSON');
    expect(written).toEqual([input]);
  });
});
