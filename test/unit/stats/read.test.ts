import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendLines } from '../../../src/stats/ledger.js';
import { type EvLine, formatLine, type LedgerLine } from '../../../src/stats/line.js';
import { readLedger, type ScannedLine } from '../../../src/stats/read.js';
import { report, tempLedger } from './helpers.js';

interface Copy {
  t: number;
  kind: number;
  action: number;
  s?: string;
  c?: string;
  cmd?: string;
  tool?: string;
  why?: string;
  bi: number;
  bo: number;
  ti: number;
  to: number;
  est: boolean;
}

const copy = (l: ScannedLine): Copy => ({
  t: l.t,
  kind: l.kind,
  action: l.action,
  ...(l.s !== undefined ? { s: l.s } : {}),
  ...(l.c !== undefined ? { c: l.c } : {}),
  ...(l.cmd !== undefined ? { cmd: l.cmd } : {}),
  ...(l.tool !== undefined ? { tool: l.tool } : {}),
  ...(l.why !== undefined ? { why: l.why } : {}),
  bi: l.bi,
  bo: l.bo,
  ti: l.ti,
  to: l.to,
  est: l.est,
});

async function readAll(loc: ReturnType<typeof tempLedger>['loc'], filter = {}) {
  const lines: Copy[] = [];
  const counts = await readLedger(loc, filter, (l) => lines.push(copy(l)));
  return { lines, counts };
}

function ev(extra: Partial<EvLine> = {}): EvLine {
  return {
    t: 1_700_000_000_000,
    r: 'run1',
    e: 'ev',
    c: 'collapse',
    a: 'rewrite',
    o: 'stdin',
    bi: 10,
    bo: 5,
    ti: 4,
    to: 2,
    ...extra,
  };
}

describe('the ledger reader', () => {
  it('reads back every field formatLine writes, whatever the strings hold', async () => {
    // Strings with quotes, backslashes, newlines, control characters and astral characters.
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            s: fc.option(text, { nil: undefined }),
            c: text,
            cmd: fc.option(text, { nil: undefined }),
            tool: fc.option(text, { nil: undefined }),
            why: fc.option(text, { nil: undefined }),
            bi: fc.nat(),
            ti: fc.nat(),
            est: fc.boolean(),
          }),
          { minLength: 1, maxLength: 20 },
        ),
        async (records) => {
          const { loc } = tempLedger();
          const lines: LedgerLine[] = records.map((r, i) =>
            ev({
              t: 1_700_000_000_000 + i,
              c: r.c,
              bi: r.bi,
              ti: r.ti,
              ...(r.s !== undefined ? { s: r.s } : {}),
              ...(r.cmd !== undefined ? { cmd: r.cmd } : {}),
              ...(r.tool !== undefined ? { tool: r.tool } : {}),
              ...(r.why !== undefined ? { why: r.why } : {}),
              ...(r.est ? { est: 1 as const } : {}),
            }),
          );
          await appendLines(loc, lines.map(formatLine));
          const { lines: read, counts } = await readAll(loc);
          expect(counts.bad).toBe(0);
          // The reference: JSON.parse of the same lines.
          const expected = lines.map((l) => JSON.parse(formatLine(l)) as Record<string, unknown>);
          expect(read.map((l) => [l.t, l.s, l.c, l.cmd, l.tool, l.why, l.bi, l.ti, l.est])).toEqual(
            expected.map((o) => [o.t, o.s, o.c, o.cmd, o.tool, o.why, o.bi, o.ti, o.est === 1]),
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('gives the same report as parsing every line in full, for every kind of line', async () => {
    const text = fc.string({ unit: 'binary', maxLength: 12 });
    const line = fc.oneof(
      fc.record({
        e: fc.constant('run' as const),
        n: fc.nat(5),
        rw: fc.nat(5),
        ub: fc.nat(),
        cmd: fc.option(text, { nil: undefined }),
      }),
      fc.record({
        e: fc.constant('out' as const),
        cmd: fc.option(text, { nil: undefined }),
        tool: fc.option(text, { nil: undefined }),
        ti: fc.nat(),
        to: fc.nat(),
        est: fc.boolean(),
      }),
      fc.record({
        e: fc.constant('ev' as const),
        c: fc.constantFrom('cmdfilter', 'collapse', 'format', 'é"\\x'),
        a: fc.constantFrom('rewrite', 'skip', 'revert', 'fail'),
        why: fc.option(fc.constantFrom('no filter matches', 'no filter matched', 'under min_tokens'), {
          nil: undefined,
        }),
        cmd: fc.option(text, { nil: undefined }),
        ti: fc.nat(),
        to: fc.nat(),
        est: fc.boolean(),
      }),
      fc.record({ e: fc.constant('x' as const), hit: fc.boolean(), tr: fc.nat(), est: fc.boolean() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 30 }), async (specs) => {
        const { loc } = tempLedger();
        const lines: LedgerLine[] = specs.map((x, i) => {
          const b = { t: 1_700_000_000_000 + i, r: `r${i}` };
          const est = 'est' in x && x.est ? { est: 1 as const } : {};
          switch (x.e) {
            case 'run':
              return {
                ...b,
                e: 'run',
                fmt: 'text',
                tk: 'o200k',
                n: x.n + x.rw,
                rw: x.rw,
                ub: x.ub,
                ...(x.cmd !== undefined ? { cmd: x.cmd } : {}),
              };
            case 'out':
              return {
                ...b,
                e: 'out',
                o: 'stdin',
                bi: 1,
                bo: 1,
                ti: x.ti + x.to,
                to: x.to,
                ...est,
                ...(x.cmd !== undefined ? { cmd: x.cmd } : {}),
                ...(x.tool !== undefined ? { tool: x.tool } : {}),
              };
            case 'ev':
              return ev({
                ...b,
                c: x.c,
                a: x.a,
                ti: x.ti + x.to,
                to: x.to,
                ...est,
                ...(x.why !== undefined ? { why: x.why } : {}),
                ...(x.cmd !== undefined ? { cmd: x.cmd } : {}),
              });
            default:
              return { ...b, e: 'x', k: '0123456789abcdef', hit: x.hit ? 1 : 0, b: 4, tr: x.tr, ...est };
          }
        });
        await appendLines(loc, lines.map(formatLine));
        const r = await report(loc, {}, 1000);
        // The reference: every line parsed in full with JSON.parse.
        const all = lines.map((l) => JSON.parse(formatLine(l)) as Record<string, unknown>);
        const sum = (xs: Record<string, unknown>[], f: string) =>
          xs.reduce((n: number, o) => n + ((o[f] as number | undefined) ?? 0), 0);
        const outs = all.filter((o) => o.e === 'out' && !o.est);
        const hits = all.filter((o) => o.e === 'x' && o.hit === 1 && !o.est);
        expect(r.runs).toBe(all.filter((o) => o.e === 'run').length);
        expect(r.tokens.in).toBe(sum(outs, 'ti'));
        expect(r.tokens.out).toBe(sum(outs, 'to'));
        expect(r.expand.tokensReturned).toBe(sum(hits, 'tr'));
        expect(r.estimated.outputs).toBe(all.filter((o) => o.e === 'out' && o.est).length);
        for (const row of r.components) {
          const mine = all.filter((o) => o.e === 'ev' && o.c === row.component);
          expect([row.rewrites, row.skips, row.reverts, row.fails]).toEqual(
            ['rewrite', 'skip', 'revert', 'fail'].map(
              (a) => mine.filter((o) => o.a === a && !(a === 'rewrite' && o.est)).length,
            ),
          );
          expect(row.tokensIn).toBe(
            sum(
              mine.filter((o) => o.a === 'rewrite' && !o.est),
              'ti',
            ),
          );
        }
        const unmatched = all.filter(
          (o) =>
            o.e === 'ev' &&
            o.c === 'cmdfilter' &&
            o.a === 'skip' &&
            typeof o.why === 'string' &&
            (o.why as string).startsWith('no filter match'),
        );
        expect(r.unmatched.reduce((n, u) => n + u.count, 0)).toBe(
          Math.min(unmatched.length, unmatched.length),
        );
      }),
      { numRuns: 60 },
    );
  });

  it('does not let a line torn after the fields it needs hide the whole line written after it', async () => {
    const { loc } = tempLedger();
    mkdirSync(loc.dir, { recursive: true });
    const skip = formatLine(ev({ c: 'format', a: 'skip', why: 'does not apply' }));
    const torn = skip.slice(0, skip.indexOf('"o":'));
    const whole = formatLine(ev({ c: 'toon', a: 'skip' }));
    writeFileSync(loc.live, `${torn}${whole}\n`);
    const { lines, counts } = await readAll(loc);
    expect(lines.map((l) => l.c)).toEqual(['toon']);
    expect(counts.bad).toBe(1); // the torn event is lost, and said to be
  });

  it('skips a torn line and still reads the whole line written after it', async () => {
    const { loc } = tempLedger();
    mkdirSync(loc.dir, { recursive: true });
    const whole = formatLine(ev({ c: 'format' }));
    const torn = formatLine(ev({ c: 'collapse' })).slice(0, 40);
    writeFileSync(loc.live, `${whole}\n${torn}${whole}\n${torn}\n${whole}\n`);
    const { lines, counts } = await readAll(loc);
    expect(lines.map((l) => l.c)).toEqual(['format', 'format', 'format']);
    expect(counts.bad).toBe(2);
  });

  it('does not count a last line still being written as bad', async () => {
    const { loc } = tempLedger();
    mkdirSync(loc.dir, { recursive: true });
    writeFileSync(loc.live, `${formatLine(ev())}\n${formatLine(ev()).slice(0, 30)}`);
    const { lines, counts } = await readAll(loc);
    expect(lines).toHaveLength(1);
    expect(counts.bad).toBe(0);
  });

  it('counts a settled line once even when its record was appended twice', async () => {
    const { loc } = tempLedger();
    const batch = (r: string) => [0, 1, 2].map((i) => formatLine({ ...ev({ r, bi: i }), d: 1, i }));
    await appendLines(loc, batch('a'));
    await appendLines(loc, batch('b'));
    await appendLines(loc, batch('a')); // a reader died after appending; another settled it again
    await appendLines(loc, [formatLine(ev({ r: 'a' }))]); // not from a pending record: not deduplicated
    const { lines, counts } = await readAll(loc);
    expect(lines).toHaveLength(7);
    expect(counts.duplicates).toBe(3);
  });

  it('drops lines before --since and of other sessions', async () => {
    const { loc } = tempLedger();
    await appendLines(loc, [
      formatLine(ev({ t: 1000, s: 'a' })),
      formatLine(ev({ t: 2000, s: 'b' })),
      formatLine(ev({ t: 3000, s: 'a"quoted"' })),
      formatLine(ev({ t: 4000 })),
    ]);
    expect((await readAll(loc, { since: 2000 })).lines.map((l) => l.t)).toEqual([2000, 3000, 4000]);
    expect((await readAll(loc, { session: 'a' })).lines.map((l) => l.t)).toEqual([1000]);
    expect((await readAll(loc, { session: 'a"quoted"' })).lines.map((l) => l.t)).toEqual([3000]);
  });

  it('reads lines that straddle its read chunks, across rotated files and the live one', async () => {
    const { loc } = tempLedger();
    mkdirSync(loc.dir, { recursive: true });
    const line = `${formatLine(ev({ cmd: 'é'.repeat(100) }))}\n`;
    const n = Math.ceil((9 * 1024 * 1024) / Buffer.byteLength(line));
    appendFileSync(`${loc.dir}/ledger.000000001-x-0.jsonl`, line.repeat(n));
    appendFileSync(loc.live, line.repeat(3));
    const counts = { lines: 0, cmdOk: 0 };
    const read = await readLedger(loc, {}, (l) => {
      counts.lines++;
      if (l.cmd === 'é'.repeat(100)) counts.cmdOk++;
    });
    expect(read.files).toBe(2);
    expect(read.bad).toBe(0);
    expect(counts).toEqual({ lines: n + 3, cmdOk: n + 3 });
  });
});

describe('the accounting figures', () => {
  it('are the same as a recount of every line parsed in full: host-capped totals, recall and unfiltered commands', async () => {
    const keys = ['000000000000000a', '000000000000000b', '000000000000000c'];
    const line = fc.oneof(
      fc.record({
        e: fc.constant('run' as const),
        h: fc.option(fc.constantFrom('claude-code', 'codex'), { nil: undefined }),
        via: fc.option(fc.constantFrom('hook', 'pipe'), { nil: undefined }),
      }),
      fc.record({
        e: fc.constant('out' as const),
        cmd: fc.constantFrom('make', 'make -k', 'ls'),
        h: fc.option(fc.constant('claude-code'), { nil: undefined }),
        nf: fc.boolean(),
        ti: fc.nat(5000),
        to: fc.nat(100),
        hi: fc.option(fc.nat(600), { nil: undefined }),
        ho: fc.option(fc.nat(50), { nil: undefined }),
        est: fc.boolean(),
      }),
      fc.record({
        e: fc.constant('rw' as const),
        c: fc.constantFrom('cmdfilter', 'collapse'),
        f: fc.option(fc.constantFrom('git-log', 'pytest'), { nil: undefined }),
        k: fc.option(fc.constantFrom(...keys), { nil: undefined }),
      }),
      fc.record({
        e: fc.constant('skip' as const),
        cmd: fc.constantFrom('make', 'ls'),
        ro: fc.boolean(),
        bi: fc.nat(9000),
      }),
      fc.record({
        e: fc.constant('x' as const),
        k: fc.constantFrom(...keys),
        hit: fc.boolean(),
        tr: fc.nat(900),
        hr: fc.option(fc.nat(300), { nil: undefined }),
        est: fc.boolean(),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 40 }), async (specs) => {
        const { loc } = tempLedger();
        const lines: LedgerLine[] = specs.map((x, i) => {
          const b = { t: 1_700_000_000_000 + i, r: `r${i}` };
          const opt = (o: Record<string, unknown>) =>
            Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== false));
          switch (x.e) {
            case 'run':
              return {
                ...b,
                e: 'run',
                fmt: 'text',
                tk: 'o200k',
                n: 1,
                rw: 1,
                ub: 0,
                ...opt({ h: x.h, via: x.via }),
              } as LedgerLine;
            case 'out':
              return {
                ...b,
                e: 'out',
                o: 'stdin',
                cmd: x.cmd,
                bi: 1,
                bo: 1,
                ti: x.ti + x.to,
                to: x.to,
                ...opt({ h: x.h, nf: x.nf ? 1 : undefined, hi: x.hi, ho: x.ho, est: x.est ? 1 : undefined }),
              } as LedgerLine;
            case 'rw':
              return ev({ ...b, c: x.c, a: 'rewrite', ...opt({ f: x.f, k: x.k }) });
            case 'skip':
              return ev({
                ...b,
                c: 'cmdfilter',
                a: 'skip',
                cmd: x.cmd,
                why: 'no filter matches',
                bi: x.bi,
                ...opt({ ro: x.ro ? 1 : undefined }),
              });
            default:
              return {
                ...b,
                e: 'x',
                k: x.k,
                hit: x.hit ? 1 : 0,
                b: 4,
                tr: x.tr,
                ...opt({ hr: x.hr, est: x.est ? 1 : undefined }),
              } as LedgerLine;
          }
        });
        await appendLines(loc, lines.map(formatLine));
        const r = await report(loc, {}, 1000);
        const all = lines.map((l) => JSON.parse(formatLine(l)) as Record<string, number & string>);
        const n = (v: unknown) => (typeof v === 'number' ? v : 0);
        const outs = all.filter((o) => o.e === 'out' && !o.est);
        const hits = all.filter((o) => o.e === 'x' && o.hit === 1 && !o.est);
        expect(r.capped.in).toBe(outs.reduce((s, o) => s + n(o.hi ?? o.ti), 0));
        expect(r.capped.out).toBe(outs.reduce((s, o) => s + n(o.ho ?? o.to), 0));
        expect(r.capped.returned).toBe(hits.reduce((s, o) => s + n(o.hr ?? o.tr), 0));
        // Recall: markers per component/filter; each key belongs to its first producer.
        const producer = new Map<string, string>();
        const markers = new Map<string, number>();
        const shown = new Map<string, number>();
        for (const o of all.filter((o) => o.e === 'ev' && o.a === 'rewrite' && o.k)) {
          const k = String(o.k);
          const row = `${o.c}/${o.f ?? ''}`;
          if (!producer.has(k)) producer.set(k, row);
          markers.set(row, (markers.get(row) ?? 0) + 1);
          // A key's recalls are capped by the markers its producer showed.
          if (producer.get(k) === row) shown.set(k, (shown.get(k) ?? 0) + 1);
        }
        const recalled = new Map<string, number>();
        for (const k of keys) {
          const asked = all.filter((o) => o.e === 'x' && o.k === k).length;
          const row = producer.get(k);
          if (row && asked) recalled.set(row, (recalled.get(row) ?? 0) + Math.min(asked, shown.get(k)!));
        }
        expect(
          Object.fromEntries(
            r.recall.map((x) => [`${x.component}/${x.filter ?? ''}`, [x.markers, x.recalled]]),
          ),
        ).toEqual(Object.fromEntries([...markers].map(([row, m]) => [row, [m, recalled.get(row) ?? 0]])));
        // Unfiltered: out lines with nf, and cmdfilter no-filter skips not counted on an out line.
        const unfiltered = [
          ...all.filter((o) => o.e === 'out' && o.nf).map((o) => ({ cmd: o.cmd, tokens: n(o.ti) })),
          ...all
            .filter((o) => o.e === 'ev' && o.a === 'skip' && !o.ro)
            .map((o) => ({ cmd: o.cmd, tokens: Math.ceil(n(o.bi) / 4) })),
        ];
        expect(r.discover.runs).toBe(unfiltered.length);
        expect(r.discover.tokens).toBe(unfiltered.reduce((s, u) => s + u.tokens, 0));
        expect(r.discover.rows.find((d) => d.command === 'ls')?.runs ?? 0).toBe(
          unfiltered.filter((u) => u.cmd === 'ls').length,
        );
      }),
      { numRuns: 60 },
    );
  });
});
