import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../src/hook/diff.js';
import { installHook, isCgHookCommand, uninstallHook } from '../../../src/hook/settings.js';

const entry = { matcher: 'Bash', command: 'cg hook claude', timeout: 10 };

const withOtherHooks = `${JSON.stringify(
  {
    model: 'opus',
    permissions: { allow: ['Bash(npm test:*)'], deny: [] },
    hooks: {
      PreToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: '~/bin/guard.sh' }] }],
      PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'jq . >> ~/bash.log' }] }],
    },
    statusLine: { type: 'command', command: 'echo hi' },
  },
  null,
  2,
)}\n`;

function edit(r: ReturnType<typeof installHook>) {
  if (!r.ok) throw new Error(r.reason);
  return r;
}

describe('hook settings', () => {
  it('recognises cg hook commands, however cg is reached', () => {
    for (const c of ['cg hook claude', '/usr/local/bin/cg hook codex', 'node /opt/cg/bin/cg.js hook claude'])
      expect(isCgHookCommand(c)).toBe(true);
    for (const c of ['cgx hook claude', 'echo cg hook', 'cg run -- make', 42])
      expect(isCgHookCommand(c)).toBe(false);
  });

  it('adds one PreToolUse group for Bash and keeps every other setting and hook in place', () => {
    const once = edit(installHook(withOtherHooks, entry));
    expect(once.changed).toBe(true);
    const parsed = JSON.parse(once.text);
    expect(parsed.hooks.PreToolUse).toEqual([
      { matcher: 'Write|Edit', hooks: [{ type: 'command', command: '~/bin/guard.sh' }] },
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'cg hook claude', timeout: 10 }] },
    ]);
    const { hooks: _a, ...restAfter } = parsed;
    const { hooks: _b, ...restBefore } = JSON.parse(withOtherHooks);
    expect(restAfter).toEqual(restBefore);
    expect(parsed.hooks.PostToolUse).toEqual(JSON.parse(withOtherHooks).hooks.PostToolUse);
    expect(Object.keys(parsed)).toEqual(Object.keys(JSON.parse(withOtherHooks)));
  });

  it('is idempotent, and uninstall gives back the original bytes', () => {
    const once = edit(installHook(withOtherHooks, entry));
    const twice = edit(installHook(once.text, entry));
    expect(twice.changed).toBe(false);
    expect(twice.text).toBe(once.text);
    const removed = edit(uninstallHook(twice.text));
    expect(removed.changed).toBe(true);
    expect(removed.text).toBe(withOtherHooks);
    expect(edit(uninstallHook(removed.text)).changed).toBe(false);
  });

  it('creates the structure in a missing or empty file and removes it all again', () => {
    const created = edit(installHook(undefined, entry));
    expect(JSON.parse(created.text)).toEqual({
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'cg hook claude', timeout: 10 }] },
        ],
      },
    });
    expect(edit(uninstallHook(created.text)).text).toBe('{}\n');
  });

  it('keeps the file indentation and a missing final newline', () => {
    const four = JSON.stringify({ a: 1 }, null, 4);
    const out = edit(installHook(four, entry)).text;
    expect(out).toMatch(/^\{\n {4}"a": 1,/);
    expect(out.endsWith('}')).toBe(true);
    expect(edit(uninstallHook(out)).text).toBe(four);
  });

  it('removes only cg handlers from a group it shares with others', () => {
    const shared = JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: 'audit.sh' },
              { type: 'command', command: 'cg hook claude' },
            ],
          },
        ],
      },
    });
    const out = JSON.parse(edit(uninstallHook(shared)).text);
    expect(out.hooks.PreToolUse).toEqual([
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh' }] },
    ]);
  });

  it('refuses files it should not edit', () => {
    expect(installHook('{ "hooks": ', entry).ok).toBe(false);
    expect(installHook('[1, 2]', entry).ok).toBe(false);
    expect(installHook('{"hooks": []}', entry).ok).toBe(false);
    expect(installHook('{"hooks": {"PreToolUse": {}}}', entry).ok).toBe(false);
  });
});

describe('unified diff', () => {
  it('prints hunks with context as diff -u does', () => {
    const a = 'a\nb\nc\nd\ne\nf\ng\nh\n';
    const b = 'a\nb\nc\nD\ne\nf\ng\nh\ni\n';
    expect(unifiedDiff(a, b, 'a/x', 'b/x')).toBe(
      [
        '--- a/x',
        '+++ b/x',
        '@@ -1,8 +1,9 @@',
        ' a',
        ' b',
        ' c',
        '-d',
        '+D',
        ' e',
        ' f',
        ' g',
        ' h',
        '+i',
        '',
      ].join('\n'),
    );
    expect(unifiedDiff(a, a, 'a/x', 'b/x')).toBe('');
  });

  it('shows a new file as all additions', () => {
    expect(unifiedDiff('', '{\n}\n', '/dev/null', 'b/x')).toBe(
      '--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+{\n+}\n',
    );
  });

  it('keeps far-apart changes in separate hunks', () => {
    const a = Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n');
    const b = a.replace('l2\n', 'L2\n').replace('l25', 'L25');
    const out = unifiedDiff(a, b, 'a', 'b');
    expect(out.match(/^@@/gm)).toHaveLength(2);
    expect(out).toContain('@@ -1,6 +1,6 @@');
    expect(out).toContain('@@ -23,7 +23,7 @@');
  });
});
