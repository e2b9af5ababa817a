import { describe, expect, it } from 'vitest';
import { baselineLine, HOSTS, hostCaps, hostModel, hostView, resolveHost } from '../../../src/stats/hosts.js';

const claude = hostModel('claude-code')!;
const codex = hostModel('codex')!;
const gemini = hostModel('gemini')!;
const opencode = hostModel('opencode')!;

/**
 * OpenCode 1.18.33's own cut of a shell output (its bundled `es(output, maxLines, maxBytes)`, read in
 * the binary and written out here): the reference the model in src/hosts is checked against.
 */
function openCodeCut(o: string, e: number, r: number): { text: string; cut: boolean } {
  const t = o.split('\n');
  if (t.length <= e && Buffer.byteLength(o, 'utf-8') <= r) return { text: o, cut: false };
  const i: string[] = [];
  let n = 0;
  for (let y = t.length - 1; y >= 0 && i.length < e; y--) {
    const u = Buffer.byteLength(t[y]!, 'utf-8') + (i.length > 0 ? 1 : 0);
    if (n + u > r) {
      if (i.length === 0) {
        const m = Buffer.from(t[y]!, 'utf-8');
        let l = m.length - r;
        if (l < 0) l = 0;
        while (l < m.length && (m[l]! & 192) === 128) l++;
        i.unshift(m.subarray(l).toString('utf-8'));
      }
      break;
    }
    i.unshift(t[y]!);
    n += u;
  }
  return { text: i.join('\n'), cut: true };
}

function lines(n: number, width = 9): string {
  let s = '';
  for (let i = 0; i < n; i++) s += `${String(i).padStart(width, '0')}\n`;
  return s;
}

describe('which host ran cg', () => {
  it('takes the recording option first, then CG_HOST, then the variable the host sets in its shells', () => {
    expect(resolveHost('codex', { CG_HOST: 'gemini', CLAUDECODE: '1' })).toBe('codex');
    expect(resolveHost(undefined, { CG_HOST: 'Claude', GEMINI_CLI: '1' })).toBe('claude-code');
    expect(resolveHost(undefined, { CLAUDECODE: '1' })).toBe('claude-code');
    expect(resolveHost(undefined, { GEMINI_CLI: '1' })).toBe('gemini');
    expect(resolveHost(undefined, { CODEX_THREAD_ID: 't-1' })).toBe('codex');
    expect(resolveHost(undefined, {})).toBeUndefined();
  });

  it('records no host for CG_HOST=none even inside a host, and keeps an unmodelled host by name', () => {
    expect(resolveHost(undefined, { CG_HOST: 'none', CLAUDECODE: '1' })).toBeUndefined();
    expect(resolveHost(undefined, { CG_HOST: 'cursor' })).toBe('cursor');
    expect(hostModel('cursor')).toBeUndefined();
    expect(resolveHost(undefined, { CG_HOST: 'not a name; rm -rf' })).toBeUndefined();
  });
});

describe("what a host shows of a command's output", () => {
  it('Claude Code shows an output of up to 30,000 chars whole', () => {
    const text = 'x'.repeat(30_000);
    expect(hostCaps(claude, text, 30_000)).toBe(false);
    expect(hostView(claude, text)).toBe(text);
  });

  it('Claude Code shows a longer one as a preview of its first 2,000 chars, cut back to a newline', () => {
    const text = lines(4000); // 40,000 chars, lines of 10
    expect(hostCaps(claude, text, text.length)).toBe(true);
    const view = hostView(claude, text);
    expect(view.startsWith('<persisted-output>\nOutput too large (39.1KB). Full output saved to: ')).toBe(
      true,
    );
    const preview = view.slice(view.indexOf('Preview (first 2KB):\n') + 21, view.lastIndexOf('\n...\n'));
    expect(preview).toBe(text.slice(0, 1999)); // 199 whole lines, their last newline cut
    expect(view.endsWith('\n...\n</persisted-output>')).toBe(true);
  });

  it('Claude Code counts chars, not bytes: 20,000 three-byte chars fit', () => {
    const text = '€'.repeat(20_000);
    expect(hostCaps(claude, text, Buffer.byteLength(text))).toBe(false);
  });

  it('Codex keeps 20,000 bytes of each end of an output past 40,000 bytes, on character boundaries', () => {
    const text = `${'a'.repeat(19_999)}€${'b'.repeat(30_000)}€${'c'.repeat(19_999)}`;
    const bytes = Buffer.byteLength(text);
    expect(hostCaps(codex, text, bytes)).toBe(true);
    const view = hostView(codex, text);
    // Each € would cross its end's 20,000-byte boundary, so neither is kept.
    expect(view).toMatch(/^Total output lines: 1\na{19999}…\d+ tokens truncated…c{19999}$/);
    expect(hostView(codex, 'short\n')).toBe('short\n');
  });

  it('Gemini CLI keeps the first 8,000 and the last 32,000 chars of an output past 40,000', () => {
    const text = `${'h'.repeat(10_000)}${'m'.repeat(30_000)}${'t'.repeat(10_000)}`;
    const view = hostView(gemini, text);
    expect(view).toContain(`\n${'h'.repeat(8_000)}\n\n... [10,000 characters omitted] ...\n\n`);
    expect(view.endsWith(`${'m'.repeat(22_000)}${'t'.repeat(10_000)}`)).toBe(true);
    expect(view).not.toContain('h'.repeat(8_001));
  });

  it('OpenCode cuts past 2,000 lines even when small, and past 51,200 bytes, to the last whole lines', () => {
    const many = lines(2_000); // 20,000 bytes, but 2,001 pieces: OpenCode cuts it
    expect(hostCaps(opencode, many, many.length)).toBe(true);
    expect(hostCaps(opencode, lines(1_999), 19_990)).toBe(false);
    const view = hostView(opencode, many);
    expect(view).toMatch(/^\.\.\.output truncated\.\.\.\n\nFull output saved to: \S+\n\n000000001\n/);
    expect(view.endsWith('000001999\n')).toBe(true);
    const wide = lines(6_000, 19); // 120,000 bytes: 2,560 lines of 20 bytes fit 51,200, 2,000 lines first
    expect(hostView(opencode, wide).split('\n').length).toBe(2_000 + 4);
  });

  it("OpenCode's view is its own cut of the output, on every shape", () => {
    const long = (n: number, c: string) => c.repeat(n);
    const cases = [
      '',
      'one line',
      'ends\n',
      '\n\n\n',
      lines(2_000),
      lines(1_999),
      lines(2_001, 0),
      lines(10_000, 30),
      `${lines(100)}${long(60_000, 'x')}`,
      `${long(60_000, 'y')}\n`,
      `head\n${long(30_000, '€')}`, // one 90,000-byte last line: its tail, on a character boundary
      `${long(25_000, 'é')}\n${long(25_000, 'a')}\n${long(1_000, 'b')}`,
    ];
    for (const text of cases) {
      const ref = openCodeCut(text, 2_000, 51_200);
      expect(hostCaps(opencode, text, Buffer.byteLength(text))).toBe(ref.cut);
      const view = hostView(opencode, text);
      if (!ref.cut) expect(view).toBe(text);
      else expect(view.slice(view.indexOf('\n\n', view.indexOf('saved to: ')) + 2)).toBe(ref.text);
    }
  });

  it('a host view of a text with no known text is decided on bytes alone', () => {
    expect(hostCaps(claude, undefined, 30_001)).toBe(true);
    expect(hostCaps(codex, undefined, 40_000)).toBe(false);
  });
});

describe('the line saying what the figures are measured against', () => {
  it('fits 80 columns for every host alone, every mix, and runs without a host', () => {
    const names = HOSTS.map((h) => h.name);
    const mixes: (string | undefined)[][] = [[], [undefined]];
    for (const n of names) mixes.push([n], [n, undefined]);
    mixes.push(names, [...names, undefined]);
    for (const mix of mixes) expect([...baselineLine(mix)].length).toBeLessThanOrEqual(80);
    expect(baselineLine(['claude-code'])).toMatch(/Claude Code .*30,000/);
    expect(baselineLine([undefined])).toMatch(/no agent host recorded/);
  });

  it("says cg's own model calls are netted out when they are, within 80 columns for every mix", () => {
    const names = HOSTS.map((h) => h.name);
    const mixes: (string | undefined)[][] = [[], [undefined], ['aider'], [...names, 'aider', undefined]];
    for (const n of names) mixes.push([n], [n, undefined]);
    mixes.push(names, [...names, undefined]);
    for (const mix of mixes) {
      const line = baselineLine(mix, true);
      expect([...line].length).toBeLessThanOrEqual(80);
      expect(line).toMatch(/net of cg's own model calls$/);
      expect(baselineLine(mix)).not.toMatch(/model/);
    }
    expect(baselineLine(['claude-code'], true)).toMatch(/^vs host: .*Claude Code/);
    expect(baselineLine([...names, undefined], true)).toBe(
      "vs host: what each of the 4 hosts shows, else raw · net of cg's own model calls",
    );
  });
});
