import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findProgram } from '../../../src/run/program.js';
import { tempDir } from '../../helpers.js';

function bin(dir: string, name: string, mode: number): string {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, mode);
  return path;
}

describe('findProgram', () => {
  it('finds a command on PATH in the first directory that holds an executable of that name', () => {
    const a = tempDir();
    const b = tempDir();
    bin(a, 'tool', 0o644); // not executable: the search goes on, as execvp's does
    const exe = bin(b, 'tool', 0o755);
    expect(findProgram('tool', { PATH: `${a}:${b}` })).toEqual({ ok: true, path: exe });
  });

  it('says "command not found" (127) for a name on no PATH directory, and for an empty name', () => {
    expect(findProgram('no-such-tool', { PATH: tempDir() })).toEqual({
      ok: false,
      code: 127,
      message: 'no-such-tool: command not found',
    });
    expect(findProgram('', { PATH: '/bin' })).toMatchObject({ code: 127, message: "'': command not found" });
  });

  it('says "Permission denied" (126) when only a file that cannot be executed has the name', () => {
    const dir = tempDir();
    bin(dir, 'tool', 0o644);
    // root may execute any file with an x bit, but none without one
    expect(findProgram('tool', { PATH: dir })).toMatchObject({ ok: false, code: 126 });
  });

  it('takes a name with a slash as a path: missing is 127, a directory or no permission 126', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    expect(findProgram(join(dir, 'none'))).toMatchObject({
      code: 127,
      message: `${dir}/none: No such file or directory`,
    });
    expect(findProgram(join(dir, 'sub'))).toMatchObject({ code: 126, message: `${dir}/sub: Is a directory` });
    const plain = bin(dir, 'plain', 0o600);
    expect(findProgram(plain)).toMatchObject({ code: 126, message: `${plain}: Permission denied` });
    const exe = bin(dir, 'exe', 0o700);
    expect(findProgram(exe)).toEqual({ ok: true, path: exe });
  });

  it('reads an empty PATH entry as the current directory and an unset PATH as /bin:/usr/bin', () => {
    expect(findProgram('sh', {})).toMatchObject({ ok: true });
    const dir = tempDir();
    const cwd = process.cwd();
    bin(dir, 'here', 0o755);
    process.chdir(dir);
    try {
      expect(findProgram('here', { PATH: '' })).toEqual({ ok: true, path: './here' });
    } finally {
      process.chdir(cwd);
    }
  });
});
