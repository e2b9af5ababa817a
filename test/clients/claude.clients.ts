/**
 * Claude Code, the real binary (clients.json), against the scripted Anthropic server: the session of
 * issue 15 with and without `cg init claude`, and the permission matrix. The tool results in the
 * requests Claude Code sends back are what its model reads.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ALLOW,
  expectTrueOutline,
  firstDifference,
  type Session,
  type StepResult,
  same,
  session,
  shownOrPersisted,
} from './claude-session.js';
import { cg, client, countTokens, expand, markersIn, skipReason, table } from './harness.js';
import { normaliseTimings, SESSION, type Step } from './session.js';

const skip = skipReason('claude');

describe.skipIf(skip !== undefined)(
  `Claude Code ${client('claude').version ?? ''} with cg init claude`,
  () => {
    let raw: Session;
    let withCg: Session;

    beforeAll(async () => {
      [raw, withCg] = await Promise.all([
        session(SESSION, { withCg: false, allow: ALLOW }),
        session(SESSION, { withCg: true, allow: ALLOW }),
      ]);
    });

    it('gets a tool result for every step of the session, with and without cg', () => {
      expect(raw.results.length, raw.stderr).toBe(SESSION.length);
      expect(withCg.results.length, withCg.stderr).toBe(SESSION.length);
    });

    it('cuts the tokens of the tool results the model reads by at least 40 %', async () => {
      const rows = [];
      for (const [i, s] of SESSION.entries()) {
        if (s.kind === 'expand') continue; // what cg_expand returns is an original, not a tool's output
        rows.push({
          label: s.label,
          without: await countTokens([raw.results[i]!.text]),
          with: await countTokens([withCg.results[i]!.text]),
        });
      }
      const without = rows.reduce((n, r) => n + r.without, 0);
      const withTotal = rows.reduce((n, r) => n + r.with, 0);
      process.stdout.write(
        `Claude Code ${client('claude').version}: tool-result tokens without → with cg\n${table(rows)}\n  total ${without} → ${withTotal} (${Math.round((100 * (without - withTotal)) / without)} % fewer)\n`,
      );
      expect(withTotal).toBeLessThanOrEqual(without * 0.6);
    });

    it('puts a marker in every result it shortened, and every marker expands to the exact original', () => {
      const seen = new Set<string>();
      for (const [i, s] of SESSION.entries()) {
        if (s.kind === 'expand') continue;
        const text = withCg.results[i]!.text;
        const a = same(raw, raw.results[i]!);
        const b = same(withCg, withCg.results[i]!);
        if (a !== b)
          expect(markersIn(text).length, `${s.label}: ${firstDifference(a, b)}`).toBeGreaterThan(0);
        for (const key of markersIn(text)) seen.add(key);
      }
      expect(seen.size).toBeGreaterThan(0);
      for (const key of seen) expect(expand(withCg.world, key), key).toBeDefined();
      // Deterministic steps: the stash is exactly what the command printed (or the file held).
      const logKey = markersIn(withCg.results[5]!.text)[0];
      expect(logKey).toBeDefined();
      expect(expand(withCg.world, logKey!)).toBe(
        cg(withCg.world, ['run', '--raw', '--', 'cat', 'logs/app.log']).stdout,
      );
      const readKey = markersIn(withCg.results[6]!.text)[0];
      expect(readKey).toBeDefined();
      // The Read's stash is the numbered read Claude Code shows the model, byte for byte.
      expect(expand(withCg.world, readKey!)).toBe(raw.results[6]!.text);
    });

    it('shows each kept line of an outlined Read once, with its true line number, and the first line', () => {
      const i = SESSION.findIndex((s) => s.kind === 'read');
      expectTrueOutline(withCg.world, withCg.results[i]!.text);
    });

    it('hands the model the original through the cg_expand MCP tool', () => {
      const i = SESSION.findIndex((s) => s.kind === 'expand');
      const key = markersIn(
        withCg.results
          .slice(0, i)
          .map((r) => r.text)
          .join('\n'),
      )[0]!;
      expect(withCg.results[i]!.isError).toBe(false);
      expect(shownOrPersisted(withCg.results[i]!.text).trimEnd()).toBe(expand(withCg.world, key)!.trimEnd());
    });

    it('keeps every error status and exit code as the command left it', () => {
      for (const [i, s] of SESSION.entries()) {
        if (s.kind === 'expand') continue;
        expect(withCg.results[i]!.isError, s.label).toBe(raw.results[i]!.isError);
        const exit = (t: string) => /^Exit code (\d+)/.exec(t)?.[1];
        expect(exit(withCg.results[i]!.text), s.label).toBe(exit(raw.results[i]!.text));
      }
    });

    it('compacts the failing runs the rules allow (PreToolUse through cg run): is_error, exit code, exact stash', async () => {
      const output = normaliseTimings(
        cg(withCg.world, ['run', '--raw', '--', 'python3', '-m', 'pytest', '-v']).stdout,
      );
      for (const i of [0, 8]) {
        const r = withCg.results[i]!;
        expect(r.isError, SESSION[i]!.label).toBe(true);
        expect(r.text.startsWith('Exit code 1\n'), r.text.slice(0, 80)).toBe(true);
        expect(await countTokens([r.text])).toBeLessThan(await countTokens([raw.results[i]!.text]));
        const keys = markersIn(r.text);
        expect(keys.length, r.text.slice(0, 400)).toBeGreaterThan(0);
        // The stash is what the command printed, byte for byte (pytest's timings aside).
        expect(normaliseTimings(expand(withCg.world, keys[0]!)!)).toBe(output);
      }
    });
  },
);

const MATRIX: readonly Step[] = [
  { label: 'allowed: python3 -m pytest -v', kind: 'shell', command: 'python3 -m pytest -v tests' },
  { label: 'ask: git status', kind: 'shell', command: 'git status' },
  { label: 'deny: git log', kind: 'shell', command: 'git log -n 3' },
  { label: 'read-only, no rule: ls', kind: 'shell', command: 'ls' },
  { label: 'no rule: python3 -c', kind: 'shell', command: "python3 -c 'print(1)'" },
  // pytest's usage error: exit 4, through cg run as well.
  { label: 'allowed: pytest, exit 4', kind: 'shell', command: 'python3 -m pytest -v no_such_dir' },
];

/** The matrix's rules and the ways a session gets them: the layer they sit in and the mode. */
const RULES = {
  allow: ['Bash(python3 -m pytest:*)'],
  ask: ['Bash(git status:*)'],
  deny: ['Bash(git log:*)'],
};
const VARIANTS: { name: string; layer: 'flag' | 'local'; args: string[]; env?: Record<string, string> }[] = [
  { name: '--settings, default mode', layer: 'flag', args: [] },
  {
    name: '.claude/settings.local.json, acceptEdits',
    layer: 'local',
    args: ['--permission-mode', 'acceptEdits'],
  },
  // Claude Code refuses bypassPermissions to root outside a sandbox it is told of (IS_SANDBOX=1).
  {
    name: '--settings, bypassPermissions',
    layer: 'flag',
    args: ['--dangerously-skip-permissions'],
    env: { IS_SANDBOX: '1' },
  },
];

describe.skipIf(skip !== undefined)(`Claude Code ${client('claude').version ?? ''} permission rules`, () => {
  for (const v of VARIANTS) {
    it(`decides allow, ask, deny and unruled exactly as it does without cg (${v.name})`, async () => {
      const o = { ...RULES, layer: v.layer, args: v.args, ...(v.env ? { env: v.env } : {}) };
      const [raw, withCg] = await Promise.all([
        session(MATRIX, { withCg: false, ...o }),
        session(MATRIX, { withCg: true, ...o }),
      ]);
      expect(withCg.results.length, withCg.stderr).toBe(MATRIX.length);
      const outcome = (r: StepResult) => (r.isError ? `error: ${r.text.split('\n')[0]}` : 'ran');
      process.stdout.write(
        `Claude Code permission matrix (${v.name}):\n${MATRIX.map((s, i) => `  ${s.label.padEnd(28)} ${outcome(raw.results[i]!)}`).join('\n')}\n`,
      );
      expect(withCg.results.map(outcome)).toEqual(raw.results.map(outcome));
      // The matrix is not vacuous: something ran, something was refused.
      expect(raw.results.map(outcome)).toContain('ran');
      expect(raw.results.some((r) => r.isError)).toBe(true);
      // The allowed, failing pytest went through cg run; what the rules ask about or deny did not.
      expect(
        markersIn(withCg.results[0]!.text).length,
        withCg.results[0]!.text.slice(0, 300),
      ).toBeGreaterThan(0);
      for (const i of [1, 2]) expect(same(withCg, withCg.results[i]!)).toBe(same(raw, raw.results[i]!));
      expect(withCg.results[5]!.text.split('\n')[0]).toBe('Exit code 4');
    });
  }
});
