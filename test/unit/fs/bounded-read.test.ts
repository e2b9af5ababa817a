import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { MAX_CONFIG_BYTES, readTextFile } from '../../../src/fs/bounded-read.js';
import { tempDir } from '../../helpers.js';

const user = (path: string) =>
  readTextFile(path, { shown: 'f.yaml', what: 'config file', followLinks: true });
const project = (path: string) =>
  readTextFile(path, { shown: 'f.yaml', what: 'filter file', followLinks: false });
const problem = (read: () => unknown): string => {
  try {
    read();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected the read to fail');
};

describe('reading a config or filter file', () => {
  it('reads a regular file as UTF-8 text', () => {
    const path = join(tempDir(), 'f.yaml');
    writeFileSync(path, 'preset: safe # ü\n');
    expect(user(path)).toBe('preset: safe # ü\n');
    expect(project(path)).toBe('preset: safe # ü\n');
  });

  it('follows a link of the user, and refuses one planted in the project', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'real.yaml'), 'preset: safe\n');
    symlinkSync(join(dir, 'real.yaml'), join(dir, 'link.yaml'));
    expect(user(join(dir, 'link.yaml'))).toBe('preset: safe\n');
    expect(problem(() => project(join(dir, 'link.yaml')))).toBe(
      'f.yaml: filter file is a symbolic link (files in the project must be regular files; cg does not follow links there)',
    );
  });

  it('refuses /dev/zero behind a link at once, without reading it', () => {
    const link = join(tempDir(), 'zero.yaml');
    symlinkSync('/dev/zero', link);
    expect(problem(() => user(link))).toBe('f.yaml: config file is not a regular file (a device)');
  });

  it('refuses a FIFO without waiting for a writer', () => {
    const fifo = join(tempDir(), 'pipe.yaml');
    execFileSync('mkfifo', [fifo]);
    expect(problem(() => user(fifo))).toBe('f.yaml: config file is not a regular file (a FIFO)');
    expect(problem(() => project(fifo))).toBe('f.yaml: filter file is not a regular file (a FIFO)');
  });

  it('refuses a directory', () => {
    const dir = join(tempDir(), 'd.yaml');
    mkdirSync(dir);
    expect(problem(() => user(dir))).toBe('f.yaml: config file is not a regular file (a directory)');
  });

  it('refuses a file over 1 MiB, saying so', () => {
    const path = join(tempDir(), 'big.yaml');
    writeFileSync(path, `# ${'x'.repeat(MAX_CONFIG_BYTES)}\n`);
    expect(problem(() => user(path))).toBe('f.yaml: config file is larger than 1 MiB (1048579 bytes)');
  });

  it.skipIf(process.platform !== 'linux')(
    'refuses /proc/self/environ without echoing a byte of the environment',
    () => {
      const link = join(tempDir(), 'environ.yaml');
      symlinkSync('/proc/self/environ', link);
      const message = problem(() => user(link));
      expect(message).toBe('f.yaml: config file contains NUL bytes: not a text file');
    },
  );

  it('refuses bytes that are not UTF-8', () => {
    const path = join(tempDir(), 'latin1.yaml');
    writeFileSync(path, Buffer.from([0x61, 0x3a, 0x20, 0xe9, 0x0a]));
    expect(problem(() => user(path))).toBe('f.yaml: config file is not UTF-8 text');
  });

  it('says a missing file is not found', () => {
    expect(problem(() => user(join(tempDir(), 'none.yaml')))).toBe('f.yaml: config file not found');
  });
});
