/**
 * The filter-program sandbox: a correct program's output, each RE2 helper's semantics, and every
 * way a program can misbehave — each must end with ok:false and a one-line reason, once its time
 * budget is spent, and leave the process able to run the next program normally. The budget is the
 * worker thread's CPU time (Linux), so no assertion here depends on how busy the machine is: the
 * time checked is the program's own CPU time (cpuMs), never the wall. The heavy cases (megabytes
 * of input, the default 2 s budget, every way to loop or allocate) are in sandbox.slow.test.ts.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFilterProgram } from '../../../src/llm/sandbox.js';
import { expectHealthy, FAST, LINE_FILTER, LOG, reasonOf, text } from './sandbox-cases.js';

describe('a correct program', () => {
  it('keeps the matching lines of a realistic log, in order', async () => {
    const r = await runFilterProgram(LINE_FILTER, LOG, 'why did the tests fail?');
    expect(text(r)).toBe(
      [
        '2024-05-01T10:00:02Z ERROR db: connection refused (retry 1/3)',
        'test/api.spec.ts > returns 404 for a missing user FAIL',
        '2024-05-01T10:00:05Z ERROR db: connection refused (retry 2/3)',
      ].join('\n'),
    );
    expect(r.ms).toBeGreaterThan(0);
  });

  it('receives the query as its second argument and may define filter with const', async () => {
    const r = await runFilterProgram("const filter = (t, q) => q + ':' + t.length;", 'abc', 'héllo 😀');
    expect(text(r)).toBe('héllo 😀:3');
  });
});

/** Runs `body` (the inside of filter, which gets `t`) and returns what it returns. */
async function inFilter(body: string, input = ''): Promise<string> {
  return text(await runFilterProgram(`function filter(t, q) { ${body} }`, input, ''));
}

describe('the RE2 helpers', () => {
  it('re_sub replaces every match, expanding $1, $<name>, the brace form, $$ and Python \\1, \\g<name>', async () => {
    const out = await inFilter(
      `return [
        re_sub('(\\\\w+)=(\\\\d+)', '$2<-$1', t),
        re_sub('(?P<k>\\\\w+)=(?P<v>\\\\d+)', '$<v>/\${k}', t),
        re_sub('(\\\\w+)=(\\\\d+)', '\\\\2:\\\\1', t),
        re_sub('(?P<k>\\\\w+)=\\\\d+', '[\\\\g<k>]', t),
        re_sub('A', 'b', t, 'i'),
        re_sub('\\\\d', '$$', t),
      ].join(' | ');`,
      'a=1 b=22',
    );
    expect(out).toBe('1<-a 22<-b | 1/a 22/b | 1:a 22:b | [a] [b] | b=1 b=22 | a=$ b=$$');
  });

  it('re_sub refuses a reference to a group the pattern does not have', async () => {
    expect(await reasonOf(`function filter(t) { return re_sub('(a)', '\\\\2', t); }`, 'a')).toBe(
      'program threw: Error: re_sub: no group 2 in the pattern',
    );
  });

  it('re_findall returns matches, group 1, or arrays of groups, like Python', async () => {
    const out = await inFilter(
      `return JSON.stringify([
        re_findall('\\\\d+', t),
        re_findall('(\\\\w+)=\\\\d+', t),
        re_findall('(\\\\w+)=(\\\\d+)(x)?', t),
        re_findall('^\\\\w', t, 'm'),
        re_findall('^\\\\w', t),
        re_findall('z*', 'ab'),
      ]);`,
      'a=1\nbb=22',
    );
    expect(JSON.parse(out)).toEqual([
      ['1', '22'],
      ['a', 'bb'],
      [
        ['a', '1', ''],
        ['bb', '22', ''],
      ],
      ['a', 'b'],
      ['a'],
      ['', '', ''],
    ]);
  });

  it('re_split splits like Python, keeping captured separators and trailing empty parts', async () => {
    const out = await inFilter(
      `return JSON.stringify([re_split(',\\\\s*', t), re_split('(,)', t), re_split('X', t, 'i'), re_split(',', ',a,')]);`,
      'a, b,c',
    );
    expect(JSON.parse(out)).toEqual([['a', 'b', 'c'], ['a', ',', ' b', ',', 'c'], ['a, b,c'], ['', 'a', '']]);
  });

  it('re_match finds the pattern anywhere, honouring the i, m and s flags', async () => {
    const out = await inFilter(
      `return JSON.stringify([
        re_match('b', t), re_match('^b', t), re_match('^b', t, 'm'), re_match('B', t), re_match('B', t, 'i'),
        re_match('a.b', t), re_match('a.b', t, 's'), re_match('z', t),
      ]);`,
      'a\nb',
    );
    expect(JSON.parse(out)).toEqual([true, false, true, false, true, false, true, false]);
  });

  it('throws a catchable Error for a bad pattern, a look-around, a back-reference and a bad flag', async () => {
    const out = await inFilter(`
      const tries = [() => re_match('(a', t), () => re_sub('a(?=b)', '', t), () => re_findall('(?<!x)a', t),
        () => re_split('(a)\\\\1', t), () => re_match('a', t, 'x'), () => re_match(/a/, t)];
      return tries.map((f) => { try { f(); return 'no error'; } catch (e) { return e.name + ': ' + e.message; } }).join('\\n');`);
    expect(out.split('\n')).toEqual([
      'Error: re_match: invalid pattern "(a": missing closing ): `(a`',
      'Error: re_sub: invalid pattern "a(?=b)": look-around ((?=, (?!, (?<=, (?<!) is not supported by RE2',
      'Error: re_findall: invalid pattern "(?<!x)a": look-around ((?=, (?!, (?<=, (?<!) is not supported by RE2',
      'Error: re_split: invalid pattern "(a)\\\\1": back-references (\\1) are not supported by RE2',
      'Error: re_match: unknown flag "x" (flags are a string of i, m, s)',
      'TypeError: re_match: pattern must be a string',
    ]);
  });

  it('reports an uncaught bad pattern as the program throwing', async () => {
    expect(await reasonOf(`function filter(t) { return re_sub('a(?!b)', '', t); }`)).toMatch(
      /^program threw: Error: re_sub: invalid pattern "a\(\?!b\)": look-around/,
    );
    await expectHealthy();
  });
});

describe('a misbehaving program', () => {
  it.each([
    ['loops in a callback', '[1, 2].map(() => { while (true) {} }); return t;'],
    ['loops over slow native calls the interrupt rarely sees', "for (;;) 'x'.repeat(2e6); return t;"],
  ])('times out when it %s', async (_, body) => {
    const r = await runFilterProgram(`function filter(t) { ${body} }`, 'x', 'q', FAST);
    expect(r).toMatchObject({ ok: false, reason: 'program timed out after 500 ms' });
    if (r.cpuMs !== undefined) expect(r.cpuMs).toBeGreaterThanOrEqual(500);
    await expectHealthy();
  });

  it.each([['pushing megabyte strings', "let a = []; for (;;) a.push('x'.repeat(1e6));"]])(
    'runs out of memory %s',
    async (_, body) => {
      expect(await reasonOf(`function filter(t) { ${body} }`, 'x', { timeoutMs: 5000 })).toBe(
        'program ran out of memory',
      );
      await expectHealthy();
    },
  );

  it.each([['recursing in JS', 'function f(n) { return f(n + 1) + 1; } return f(0);']])(
    'overflows the stack %s',
    async (_, body) => {
      expect(await reasonOf(`function filter(t) { ${body} }`)).toBe('program overflowed the stack');
      await expectHealthy();
    },
  );

  it('reports what it threw', async () => {
    expect(await reasonOf("function filter(t) { throw new Error('boom'); }")).toBe(
      'program threw: Error: boom',
    );
    expect(await reasonOf("function filter(t) { throw 'just a\\nstring'; }")).toBe(
      'program threw: just a string',
    );
    expect(await reasonOf('function filter(t) { throw null; }')).toBe('program threw: null');
    expect(await reasonOf('function filter(t) { null.x; }')).toMatch(/^program threw: TypeError: /);
    await expectHealthy();
  });

  it('reports a syntax error, a missing filter and a non-string result', async () => {
    expect(await reasonOf('function filter(t) {\n  return (;\n}')).toMatch(
      /^program has a syntax error: .+ \(line 2\)$/,
    );
    expect(await reasonOf("import fs from 'node:fs'; function filter(t) { return t; }")).toMatch(
      /^program has a syntax error: /,
    );
    expect(await reasonOf('function other(t) { return t; }')).toBe(
      'program defines no function filter(text, query)',
    );
    expect(await reasonOf('var filter = 3;')).toBe('program defines no function filter(text, query)');
    expect(await reasonOf('function filter(t) { return 42; }')).toBe(
      'filter returned a number, not a string',
    );
    expect(await reasonOf('function filter(t) {}')).toBe('filter returned undefined, not a string');
    expect(await reasonOf('function filter(t) { return null; }')).toBe('filter returned null, not a string');
    expect(await reasonOf('function filter(t) { return [t]; }')).toBe(
      'filter returned an object, not a string',
    );
    await expectHealthy();
  });

  it('cannot reach the host: no require, process, console or module loading', async () => {
    const marker = join(tmpdir(), `cg-sandbox-escape-${process.pid}-${Date.now()}`);
    const out = await inFilter(`
      const seen = [typeof require, typeof process, typeof console, typeof std, typeof os, typeof module,
        typeof setTimeout, typeof fetch, typeof globalThis.process];
      let imported;
      try {
        const p = import('node:fs');
        p.then((fs) => fs.writeFileSync(${JSON.stringify(marker)}, 'escaped'));
        imported = typeof p;
      } catch (e) { imported = 'threw ' + e.name; }
      return seen.join() + ' | ' + imported;`);
    expect(out).toMatch(/^(undefined,){8}undefined \| (object|threw \w+)$/);
    expect(
      await reasonOf("function filter(t) { return require('node:fs').readFileSync('/etc/passwd', 'utf8'); }"),
    ).toBe("program threw: ReferenceError: 'require' is not defined");
    expect(await reasonOf('function filter(t) { return process.env.HOME; }')).toBe(
      "program threw: ReferenceError: 'process' is not defined",
    );
    expect(existsSync(marker)).toBe(false);
    await expectHealthy();
  });
});

describe('a program that reaches for chance or the clock', () => {
  it('gets the same answer every run: Math.random and the current time are fixed', async () => {
    const program = `function filter(t) {
      const d = new Date();
      return [Math.random(), Math.random(), Date.now(), d.getTime(), d instanceof Date, new Date('2024-05-01T00:00:00Z').getTime(), Date.UTC(2020, 0, 1)].join(' ');
    }`;
    const a = await runFilterProgram(program, 'x', 'q');
    const b = await runFilterProgram(program, 'x', 'q');
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    expect(a.text).toBe(b.text);
    const [r1, r2, now, time, isDate, parsed, utc] = a.text.split(' ');
    expect(r1).not.toBe(r2);
    expect([now, time, isDate]).toEqual(['0', '0', 'true']);
    expect(Number(parsed)).toBe(Date.parse('2024-05-01T00:00:00Z'));
    expect(Number(utc)).toBe(Date.UTC(2020, 0, 1));
  });
});
