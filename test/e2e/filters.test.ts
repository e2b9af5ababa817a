import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { cgInTerminal, HAS_PTY } from './pty.js';
import { cg, seq } from './run-cg.js';
import { traceLoads } from './trace-loads.js';

const FILTER = `schema_version: 1
filters:
  numbers:
    description: seq output, first 10 lines
    match: '^\\$ seq\\b'
    head_lines: 10
    tests:
      - { name: short, input: "1\\n2\\n", expected: "1\\n2\\n" }
      - { name: long, input: "1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n11\\n", expected: "1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n... (1 lines omitted)\\n" }
`;

function workspace() {
  const dir = tempDir('cg-e2e-filters-');
  const store = join(dir, 'store');
  writeFileSync(join(dir, 'f.yaml'), FILTER);
  return { dir, store };
}

describe('filters end to end', () => {
  it('does not load re2js or the YAML parser for `echo hi | cg`', () => {
    const r = traceLoads([], 'hi\n');
    expect(r.stdout).toBe('hi\n');
    expect(r.loaded).toContain('bin/cg.js'); // the tracer sees what loads
    expect(r.loaded).not.toMatch(/re2js|yaml/);
  });

  it('cuts a tail through --filters and --command; expand --lines N- gives exactly the rest', () => {
    const { dir, store } = workspace();
    const r = cg(['--filters', 'f.yaml', '--command', 'seq 300', '--force'], {
      input: seq(300),
      cwd: dir,
      storeDir: store,
    });
    expect(r.code).toBe(0);
    const m =
      /\.\.\. \(290 lines omitted\) <<cg:([0-9a-f]{16})>> \[full output: cg expand \1 --lines 11-\]\n$/.exec(
        r.out,
      );
    expect(m, r.out).not.toBeNull();
    const rest = cg(['expand', m![1]!, '--lines', '11-'], { storeDir: store });
    expect(rest.out).toBe(seq(300).split('\n').slice(10).join('\n'));
  });

  it('exits 2 with one line naming file and filter for a broken user filter, passing the input through', () => {
    const { dir, store } = workspace();
    const cfg = join(dir, 'cfg');
    mkdirSync(join(cfg, 'cg', 'filters'), { recursive: true });
    writeFileSync(
      join(cfg, 'cg', 'filters', 'mine.yaml'),
      'schema_version: 1\nfilters:\n  mine: { match: x, max_line: 3 }\n',
    );
    const r = cg(['--force'], { input: seq(300), cwd: dir, storeDir: store, env: { XDG_CONFIG_HOME: cfg } });
    expect(r.code).toBe(2);
    expect(r.out).toBe(seq(300));
    expect(r.stderr).toMatch(
      /^cg: .*mine\.yaml: filters\.mine\.max_line: unknown field \(did you mean max_lines\?\)/,
    );
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it.skipIf(!HAS_PTY)(
    'verify exits 1 on a failing test and 0 when all pass; trust makes project filters apply',
    () => {
      const { dir, store } = workspace();
      expect(cg(['filters', 'verify', 'f.yaml'], { cwd: dir }).out).toBe('2 passed, 0 failed\n');
      writeFileSync(join(dir, 'bad.yaml'), FILTER.replace('"1\\n2\\n" }', '"1\\n" }'));
      const bad = cg(['filters', 'verify', 'bad.yaml'], { cwd: dir });
      expect(bad.code).toBe(1);
      expect(bad.out).toMatch(/^FAIL \[numbers\] short\n/);

      mkdirSync(join(dir, '.cg', 'filters'), { recursive: true });
      writeFileSync(join(dir, '.cg', 'filters', 'p.yaml'), FILTER);
      const env = { XDG_CONFIG_HOME: join(dir, 'cfg') };
      const before = cg(['--command', 'seq 300', '--force', '-v'], {
        input: seq(300),
        cwd: dir,
        storeDir: store,
        env,
      });
      expect(before.out).not.toContain('--lines 11-');
      expect(before.stderr).toMatch(/ignoring \.cg\/filters\/ \(1 file\): .*not trusted .*cg trust/);
      // A person trusts at a terminal (cg trust refuses a pipe): a pty, as they would have.
      expect(cgInTerminal(['filters', 'trust'], { cwd: dir, env }).code).toBe(0);
      const after = cg(['--command', 'seq 300', '--force'], {
        input: seq(300),
        cwd: dir,
        storeDir: store,
        env,
      });
      expect(after.out).toContain('--lines 11-]');
    },
  );
});
