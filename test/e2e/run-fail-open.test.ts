/**
 * `cg run` never costs the user the command: whatever goes wrong inside cg (its config, its temp
 * directory, a missing command name, a file on stdout), the command runs, its output gets through
 * and its exit code is kept.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { BIN, cg, seq } from './run-cg.js';

const MARKER = /<<cg:[0-9a-f]{16}>>/;
const TYPO = 'components:\n  collapse: { max_tokns: 5 }\n';
const BAD_YAML = 'components: [collapse\n';

/** A directory holding a config file, and the ways cg can be pointed at it (all always trusted). */
function brokenConfig(
  how: 'flag' | 'env' | 'user',
  text: string,
): { dir: string; args: string[]; env: Record<string, string> } {
  const dir = tempDir();
  const file = join(dir, 'cfg.yaml');
  writeFileSync(file, text);
  const user = join(dir, 'xdg');
  mkdirSync(join(user, 'cg'), { recursive: true });
  writeFileSync(join(user, 'cg', 'config.yaml'), text);
  return {
    dir,
    args: how === 'flag' ? ['--config', file] : [],
    env: how === 'env' ? { CG_CONFIG: file } : how === 'user' ? { XDG_CONFIG_HOME: user } : {},
  };
}

/** Runs a shell line with cg on PATH-free terms ($CG is bin/cg.js) in a private store. */
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
    maxBuffer: 1 << 30,
  });
  return { code: r.status ?? -1, out: r.stdout, stderr: r.stderr };
}

const lines = (s: string) => s.split('\n').filter(Boolean);

describe('cg run with a broken config', () => {
  it.each([
    ['--config FILE', 'flag'],
    ['CG_CONFIG', 'env'],
    ['the user config', 'user'],
  ] as const)(
    'runs the command, passes its output through and keeps its exit code when %s has an unknown key',
    (_, how) => {
      const c = brokenConfig(how, TYPO);
      const r = cg(['run', ...c.args, '--', 'sh', '-c', 'echo important; touch ran; exit 3'], {
        cwd: c.dir,
        env: c.env,
      });
      expect(r.out).toBe('important\n');
      expect(r.code).toBe(3);
      expect(existsSync(join(c.dir, 'ran'))).toBe(true);
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/^cg: .*cfg\.yaml|^cg: .*config\.yaml/);
      expect(r.stderr).toMatch(/max_tokns/);
    },
  );

  it('does the same for a config that is not valid YAML and for --config naming a missing file', () => {
    const c = brokenConfig('flag', BAD_YAML);
    const bad = cg(['run', ...c.args, '--', 'sh', '-c', 'echo important; exit 4'], { cwd: c.dir });
    expect([bad.out, bad.code]).toEqual(['important\n', 4]);
    expect(bad.stderr).toMatch(/^cg: .*invalid YAML/);
    const missing = cg(['run', '--config', '/no/such/cg.yaml', '--', 'sh', '-c', 'echo important; exit 5']);
    expect([missing.out, missing.code]).toEqual(['important\n', 5]);
    expect(missing.stderr).toMatch(/^cg: config file not found: \/no\/such\/cg\.yaml\n$/);
  });

  it('passes a long output through whole, byte for byte, when the config is broken', () => {
    const c = brokenConfig('env', TYPO);
    const r = cg(['run', '--', 'seq', '1', '100000'], { cwd: c.dir, env: c.env });
    expect(r.code).toBe(0);
    expect(r.out).toBe(seq(100_000));
  });

  it('reports the broken config even when the command prints nothing', () => {
    const c = brokenConfig('flag', TYPO);
    const r = cg(['run', ...c.args, '--', 'true']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/max_tokns/);
  });

  it('treats an unknown component or preset name the same way: output through, exit code kept', () => {
    const comp = cg(['run', '-c', 'nosuch', '--', 'sh', '-c', 'seq 1 50000; exit 3']);
    expect([comp.out === seq(50_000), comp.code]).toEqual([true, 3]);
    expect(comp.stderr).toMatch(/^cg: unknown component "nosuch"/);
    const preset = cg(['run', '-p', 'nosuch', '--', 'sh', '-c', 'echo hi; exit 0']);
    expect([preset.out, preset.code]).toEqual(['hi\n', 0]);
    expect(preset.stderr).toMatch(/^cg: unknown preset "nosuch"/);
  });
});

describe('cg run where nothing can be written', () => {
  it('runs the command and passes its output through when neither the temp directory nor the store is writable', () => {
    const dir = tempDir();
    // A path under a regular file can never be created, even by root (a read-only dir stops only others).
    writeFileSync(join(dir, 'file'), 'not a directory');
    const nowhere = join(dir, 'file', 'sub');
    const r = cg(['run', '--', 'sh', '-c', 'seq 1 100000; exit 3'], {
      env: { TMPDIR: nowhere, CG_STORE_DIR: join(nowhere, 'store'), CG_STATE_DIR: join(nowhere, 'state') },
    });
    expect(r.code).toBe(3);
    expect(r.out).toBe(seq(100_000));
    expect(r.stderr).toBe('');
  });
});

describe('cg run with a command that cannot start', () => {
  it('exits 127 and says why for an empty command name, as a shell does', () => {
    const r = cg(['run', '--', '']);
    expect(r.code).toBe(127);
    expect(r.stderr).toBe("cg: '': command not found\n");
    expect(r.out).toBe('');
  });

  it('exits 126 for a directory or a file that is not executable, 127 for a path that does not exist', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'script'), 'echo hi\n', { mode: 0o644 });
    expect(cg(['run', '--', dir])).toMatchObject({ code: 126, stderr: `cg: ${dir}: Is a directory\n` });
    const file = join(dir, 'script');
    expect(cg(['run', '--', file])).toMatchObject({ code: 126, stderr: `cg: ${file}: Permission denied\n` });
    const none = join(dir, 'none');
    expect(cg(['run', '--', none])).toMatchObject({
      code: 127,
      stderr: `cg: ${none}: No such file or directory\n`,
    });
  });
});

describe('cg run when stdout is a regular file', () => {
  it('compacts there when the reader is a model (--for-model, CG_READER=model), raw otherwise', () => {
    const dir = tempDir();
    sh('node "$CG" run --for-model -- seq 1 100000 > flag.txt', dir);
    sh('CG_READER=model node "$CG" run -- seq 1 100000 > env.txt', dir);
    sh('node "$CG" run -- seq 1 100000 > person.txt', dir);
    for (const f of ['flag.txt', 'env.txt']) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(text).toMatch(MARKER);
      expect(lines(text).length).toBeLessThan(50); // compacted, not 100,000 lines
    }
    expect(readFileSync(join(dir, 'person.txt'), 'utf8')).toBe(seq(100_000));
  });

  it('says under --verbose and --explain that the output went out raw, and why', () => {
    const dir = tempDir();
    const v = sh('node "$CG" run --verbose -- seq 1 100000 > out.txt', dir);
    expect(v.stderr).toMatch(/^cg: stdout is a regular file: .*raw.*--for-model/m);
    const e = sh('node "$CG" run --explain -- seq 1 100000 > out.txt', dir);
    expect(e.stderr).toMatch(/^cg: stdout is a regular file: .*raw/m);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe(seq(100_000));
  });

  it('prints the --explain table on stderr when it compacts into a file for a model', () => {
    const dir = tempDir();
    const r = sh('node "$CG" run --for-model --explain -- seq 1 100000 > out.txt', dir);
    expect(r.stderr).toMatch(/collapse/);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toMatch(MARKER);
  });
});

describe.skipIf(!existsSync('/dev/full'))('cg run when its output cannot be written', () => {
  it('still runs the command, says in one line that the output could not be written, and fails', () => {
    const dir = tempDir();
    const ok = sh('node "$CG" run -- sh -c "seq 1 100000; touch ran" > /dev/full', dir);
    expect(existsSync(join(dir, 'ran'))).toBe(true);
    expect(ok.code).toBe(1);
    expect(ok.stderr).toBe('cg: cannot write output: ENOSPC: no space left on device, write\n');
    // A command that failed keeps its own exit code.
    const failing = sh('node "$CG" run --raw -- sh -c "echo hi; exit 7" > /dev/full', dir);
    expect(failing.code).toBe(7);
    expect(lines(failing.stderr)).toHaveLength(1);
  });
});
