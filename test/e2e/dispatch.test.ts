import { describe, expect, it } from 'vitest';
import { cg } from './run-cg.js';

describe('which command an argv names', () => {
  it('calls a mistyped command unknown, suggests the nearest one, and exits 2', () => {
    const typo = cg(['expnad', '0123456789abcdef']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("cg: unknown command 'expnad' (did you mean expand?)\n");
    expect(cg(['stast']).stderr).toBe("cg: unknown command 'stast' (did you mean stats?)\n");
    const version = cg(['version']);
    expect(version.code).toBe(2);
    expect(version.stderr).toBe("cg: unknown command 'version' (did you mean cg --version?)\n");
    const none = cg(['xyzzy']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^cg: unknown command 'xyzzy' \(commands: compress, run, expand, /);
    expect(typo.out + version.out + none.out).toBe('');
  });

  it('runs options written before the command as that command’s options', () => {
    const r = cg(['-v', 'run', '--', 'sh', '-c', 'echo hi; exit 3']);
    expect(r.code).toBe(3);
    expect(r.out).toBe('hi\n');
    expect(r.stderr).toMatch(/^cg: \[collapse\]/m);
    expect(cg(['-p', 'safe', 'run', '--', 'echo', 'ok']).out).toBe('ok\n');
  });

  it('says an option before a command that does not take it goes after the command, exit 2', () => {
    const r = cg(['-v', 'expand', '0123456789abcdef']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "cg: -v is not an option of 'cg expand' (options go after the command; see cg expand --help)\n",
    );
  });

  it('still reads stdin with options alone, and takes an option value that names a command as a value', () => {
    expect(cg(['-v'], { input: 'hello\n' }).out).toBe('hello\n');
    expect(cg(['--query', 'run'], { input: 'hello\n' }).out).toBe('hello\n');
  });
});
