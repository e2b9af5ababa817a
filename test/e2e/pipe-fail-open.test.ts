/**
 * The pipe filter never eats its input: a broken config passes the input through (and exits 2),
 * bad names are usage errors whatever the input, stdin and stdout problems get one line and a
 * non-zero exit, and a model reading a file still gets compacted output.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { BIN, cg, seq } from './run-cg.js';

const MARKER = /<<cg:[0-9a-f]{16}>>/;
const lines = (s: string) => s.split('\n').filter(Boolean);

function sh(line: string, cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync('sh', ['-c', line], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: cwd,
      CG: BIN,
      XDG_CONFIG_HOME: join(cwd, 'no-config'),
      CG_STORE_DIR: join(cwd, 'store'),
      CG_STATE_DIR: join(cwd, 'state'),
      ...env,
    },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, out: r.stdout, stderr: r.stderr };
}

describe('cg on a pipe with a broken config', () => {
  it.each([
    ['an unknown key', 'components:\n  collapse: { max_tokns: 5 }\n', /max_tokns/],
    ['invalid YAML', 'components: [collapse\n', /invalid YAML/],
  ])('passes the input through unchanged and exits 2 with one line for %s', (_, text, why) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'cfg.yaml'), text);
    const user = join(dir, 'xdg');
    mkdirSync(join(user, 'cg'), { recursive: true });
    writeFileSync(join(user, 'cg', 'config.yaml'), text);
    for (const r of [
      cg(['--config', join(dir, 'cfg.yaml')], { input: seq(3) }),
      cg([], { input: seq(3), env: { CG_CONFIG: join(dir, 'cfg.yaml') } }),
      cg([], { input: seq(100_000), env: { XDG_CONFIG_HOME: user } }),
    ]) {
      expect(r.code).toBe(2);
      expect(r.out === seq(3) || r.out === seq(100_000)).toBe(true);
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(why);
    }
  });

  it('passes the input through and exits 2 when --config names a missing file (seq 3 | cg | cat)', () => {
    const dir = tempDir();
    const r = sh('{ seq 3 | node "$CG" --config /no/such.yaml; echo "cg=$?" >&2; } | cat', dir);
    expect(r.out).toBe('1\n2\n3\n');
    expect(r.stderr).toBe('cg: config file not found: /no/such.yaml\ncg=2\n');
  });

  it('reports a broken config with exit 2 even on empty input', () => {
    const r = cg(['--config', '/no/such.yaml'], { input: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^cg: config file not found/);
  });
});

describe('cg on a pipe with a bad component or preset name', () => {
  it.each([
    ['-c', /unknown component "nosuch"/],
    ['-p', /unknown preset "nosuch"/],
  ])(
    'cg %s nosuch is a usage error (exit 2) whatever the input, and passes the input through',
    (flag, why) => {
      const empty = cg([flag, 'nosuch'], { input: '' });
      expect([empty.code, empty.out]).toEqual([2, '']);
      expect(empty.stderr).toMatch(why);
      const full = cg([flag, 'nosuch'], { input: seq(50_000) });
      expect(full.code).toBe(2);
      expect(full.out).toBe(seq(50_000));
      const binary = Buffer.from([0, 1, 2, 0xff]);
      const bin = cg([flag, 'nosuch'], { input: binary });
      expect(bin.code).toBe(2);
      expect(bin.stdout.equals(binary)).toBe(true);
    },
  );
});

describe('cg on a pipe: stdin and stdout problems', () => {
  it('exits 2 with one line when stdin is a directory (cg < /tmp)', () => {
    const r = sh('node "$CG" < /tmp', tempDir());
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('cg: standard input is a directory\n');
  });

  it.skipIf(!existsSync('/dev/full'))(
    'reports a failed write (a full disk: cg > /dev/full) with one line and exit 1, never a stack trace',
    () => {
      for (const input of ['seq 9', 'seq 100000']) {
        const r = sh(`${input} | node "$CG" > /dev/full`, tempDir());
        expect(r.code).toBe(1);
        expect(r.stderr).toBe('cg: cannot write output: ENOSPC: no space left on device, write\n');
      }
    },
  );

  it('still writes to /dev/null when a person sends the output there', () => {
    const r = sh('seq 9 | node "$CG" > /dev/null', tempDir());
    expect(r).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('cg on a pipe into a regular file', () => {
  it('compacts into the file when the reader is a model (--for-model, CG_READER=model), raw otherwise', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'in.txt'), seq(100_000));
    sh('node "$CG" --for-model < in.txt > flag.txt', dir);
    sh('CG_READER=model node "$CG" < in.txt > env.txt', dir);
    sh('node "$CG" < in.txt > person.txt', dir);
    for (const f of ['flag.txt', 'env.txt']) expect(readFileSync(join(dir, f), 'utf8')).toMatch(MARKER);
    expect(readFileSync(join(dir, 'person.txt'), 'utf8')).toBe(seq(100_000));
  });

  it('says under --verbose and --explain that it wrote raw, and why', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'in.txt'), seq(100_000));
    for (const flag of ['--verbose', '--explain']) {
      const r = sh(`node "$CG" ${flag} < in.txt > out.txt`, dir);
      expect(r.stderr).toMatch(/^cg: stdout is a regular file: .*raw.*--for-model/m);
    }
  });
});
