/**
 * Codex, the real binary (clients.json), against the scripted Responses server: the session of
 * issue 15 with and without `cg init codex` in Codex's workspace-write sandbox, once with cg's store
 * among the sandbox's writable roots (markers) and once without (raw output, nothing fails), and the
 * permission matrix of Codex's own rules (allow, prompt, forbidden).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { commandsRan, exitOf, type Session, same, session } from './codex-session.js';
import { client, countTokens, expand, markersIn, skipReason, table } from './harness.js';
import { SESSION, type Step } from './session.js';

const skip = skipReason('codex');

describe.skipIf(skip !== undefined)(`Codex ${client('codex').version ?? ''} with cg init codex`, () => {
  let raw: Session;
  let withCg: Session;
  let unwritable: Session;

  beforeAll(async () => {
    [raw, withCg, unwritable] = await Promise.all([
      session(SESSION, { withCg: false, storeWritable: true }),
      session(SESSION, { withCg: true, storeWritable: true }),
      session(SESSION, { withCg: true, storeWritable: false }),
    ]);
  });

  it('gets a tool result for every step of the session', () => {
    expect(raw.results.length, raw.stderr).toBe(SESSION.length);
    expect(withCg.results.length, withCg.stderr).toBe(SESSION.length);
    expect(unwritable.results.length, unwritable.stderr).toBe(SESSION.length);
  });

  it('keeps every exit code, with the store writable in the sandbox or not', () => {
    for (const [i, s] of SESSION.entries()) {
      if (s.kind === 'expand') continue;
      expect(exitOf(withCg.results[i]!), s.label).toBe(exitOf(raw.results[i]!));
      expect(exitOf(unwritable.results[i]!), s.label).toBe(exitOf(raw.results[i]!));
    }
  });

  it('shortens the tool results and puts a marker in each one it shortened; every marker expands', async () => {
    const rows = [];
    const seen = new Set<string>();
    for (const [i, s] of SESSION.entries()) {
      if (s.kind === 'expand') continue;
      const a = same(raw, raw.results[i]!);
      const b = same(withCg, withCg.results[i]!);
      if (a !== b) {
        const keys = markersIn(b);
        for (const k of keys) seen.add(k);
        // A result may also shrink losslessly; anything dropped is behind a marker.
        expect(keys.length > 0 || b.length < a.length, s.label).toBe(true);
      }
      rows.push({ label: s.label, without: await countTokens([a]), with: await countTokens([b]) });
    }
    const without = rows.reduce((n, r) => n + r.without, 0);
    const withTotal = rows.reduce((n, r) => n + r.with, 0);
    process.stdout.write(
      `Codex ${client('codex').version} (workspace-write, store writable): tool-result tokens without → with cg\n${table(rows)}\n  total ${without} → ${withTotal} (${Math.round((100 * (without - withTotal)) / without)} % fewer)\n`,
    );
    expect(withTotal).toBeLessThan(without);
    expect(seen.size).toBeGreaterThan(0);
    for (const key of seen) expect(expand(withCg.world, key), key).toBeDefined();
  });

  it('passes output through raw where the sandbox cannot write the store, and never fails a command', () => {
    for (const [i, s] of SESSION.entries()) {
      if (s.kind === 'expand') continue;
      expect(unwritable.results[i]).not.toMatch(/^cg: /m);
      expect(markersIn(unwritable.results[i]!), s.label).toEqual([]);
    }
  });
});

const RULES = `prefix_rule(pattern=["git", "log"], decision="forbidden")
prefix_rule(pattern=["git", "status"], decision="prompt")
prefix_rule(pattern=["python3", "-m", "pytest"], decision="allow")
`;

const MATRIX: readonly Step[] = [
  { label: 'allow rule: python3 -m pytest -q', kind: 'shell', command: 'python3 -m pytest -q tests' },
  { label: 'prompt rule: git status', kind: 'shell', command: 'git status' },
  { label: 'forbidden rule: git log', kind: 'shell', command: 'git log -p -n 3' },
  { label: 'forbidden inside a list: cd && git log', kind: 'shell', command: 'cd sub && git log -n 3' },
  { label: 'no rule: cd sub && pytest -q', kind: 'shell', command: 'cd sub && pytest -q' },
];

describe.skipIf(skip !== undefined)(`Codex ${client('codex').version ?? ''} rules`, () => {
  it('decides allow, prompt and forbidden rules exactly as it does without cg', async () => {
    const [raw, withCg] = await Promise.all([
      session(MATRIX, { withCg: false, storeWritable: true, rules: RULES }),
      session(MATRIX, { withCg: true, storeWritable: true, rules: RULES }),
    ]);
    expect(withCg.results.length, withCg.stderr).toBe(MATRIX.length);
    const outcome = (t: string) =>
      /^exec_command failed/.test(t)
        ? t.replaceAll(raw.world.root, '').replaceAll(withCg.world.root, '')
        : `ran, exit ${exitOf(t)}`;
    expect(withCg.results.map(outcome)).toEqual(raw.results.map(outcome));
    expect(raw.results.map(outcome).filter((o) => o.startsWith('ran')).length).toBeGreaterThan(0);
    expect(
      raw.results.map(outcome).filter((o) => o.startsWith('exec_command failed')).length,
    ).toBeGreaterThan(1);
    // What Codex ran: the command no rule names went through cg; the allowed one ran as written.
    const ran = commandsRan(withCg.world);
    expect(ran).toContain('python3 -m pytest -q tests');
    expect(ran.some((c) => /^cd sub && .*cg\.js run -- pytest -q$/.test(c))).toBe(true);
  });
});
