import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../../src/hosts/hook/diff.js';
import {
  type Edit,
  installHooks,
  isCgHookCommand,
  isEmptyDocument,
  removeMember,
  setMember,
  uninstallHooks,
  valueAt,
} from '../../../../src/hosts/hook/settings.js';

const entry = {
  event: 'PostToolUse',
  matcher: 'Bash|Read',
  command: "'/usr/bin/node' '/opt/cg/bin/cg.js' hook claude",
  timeout: 10,
};
const entries = [entry];
const LEGACY = ['PreToolUse'];

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

/** A hand-written settings file: tabs, one-line arrays, a comment, odd spacing, no final newline. */
const HANDWRITTEN = `{
\t"model": "opus",   // the one I like
\t"permissions": { "allow": ["Bash(npm test:*)", "Read"],   "deny": [] },
\t"hooks": {
\t\t"PreToolUse": [ { "matcher": "Write", "hooks": [ { "type": "command", "command": "guard.sh" } ] } ]
\t}
}`;

async function edit(r: Promise<Edit> | Edit) {
  const e = await r;
  if (!e.ok) throw new Error(e.reason);
  return e;
}

describe('hook settings', () => {
  it('recognises cg hook commands, however cg is reached', () => {
    for (const c of [
      'cg hook claude',
      '/usr/local/bin/cg hook codex',
      'node /opt/cg/bin/cg.js hook claude',
      "'/usr/bin/node' '/opt/cg/bin/cg.js' hook gemini --mcp-tool mcp_cg_cg_expand",
    ])
      expect(isCgHookCommand(c)).toBe(true);
    for (const c of ['cgx hook claude', 'echo cg hook', 'cg run -- make', 42])
      expect(isCgHookCommand(c)).toBe(false);
  });

  it('adds one group under the event and keeps every other setting and hook in place', async () => {
    const once = await edit(installHooks(withOtherHooks, entries, LEGACY));
    expect(once.changed).toBe(true);
    const j = JSON.parse(once.text);
    expect(j.hooks.PostToolUse).toEqual([
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'jq . >> ~/bash.log' }] },
      { matcher: 'Bash|Read', hooks: [{ type: 'command', command: entry.command, timeout: 10 }] },
    ]);
    expect(j.hooks.PreToolUse).toEqual(JSON.parse(withOtherHooks).hooks.PreToolUse);
    expect(j.permissions).toEqual(JSON.parse(withOtherHooks).permissions);
  });

  it("keeps the user's bytes outside the keys it edits: tabs, comments, one-line arrays, no final newline", async () => {
    const out = (await edit(installHooks(HANDWRITTEN, entries, LEGACY))).text;
    // Everything before the hooks object, and the user's own PreToolUse line, is byte for byte as written.
    expect(out.startsWith(HANDWRITTEN.slice(0, HANDWRITTEN.indexOf('"hooks"')))).toBe(true);
    expect(out).toContain(
      '\t\t"PreToolUse": [ { "matcher": "Write", "hooks": [ { "type": "command", "command": "guard.sh" } ] } ]',
    );
    expect(out.endsWith('}')).toBe(true);
    // The new entry is indented with the file's tabs.
    expect(out).toContain('\t\t"PostToolUse": [\n\t\t\t{\n\t\t\t\t"matcher": "Bash|Read",');
    expect(await edit(uninstallHooks(out, ['PostToolUse', ...LEGACY]))).toMatchObject({ text: HANDWRITTEN });
  });

  it('is idempotent, and uninstall gives back the original bytes', async () => {
    const once = await edit(installHooks(withOtherHooks, entries, LEGACY));
    const twice = await edit(installHooks(once.text, entries, LEGACY));
    expect(twice.changed).toBe(false);
    expect(twice.text).toBe(once.text);
    const removed = await edit(uninstallHooks(twice.text, ['PostToolUse', ...LEGACY]));
    expect(removed.text).toBe(withOtherHooks);
    expect((await edit(uninstallHooks(removed.text, ['PostToolUse']))).changed).toBe(false);
  });

  it("migrates an older cg's PreToolUse rewrite and an older command line to the one current entry", async () => {
    const old = JSON.stringify(
      {
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: 'cg hook claude', timeout: 10 }] },
            { matcher: 'Write', hooks: [{ type: 'command', command: 'guard.sh' }] },
          ],
          PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'cg hook claude' }] }],
        },
      },
      null,
      2,
    );
    const j = JSON.parse((await edit(installHooks(old, entries, LEGACY))).text);
    expect(j.hooks.PreToolUse).toEqual([
      { matcher: 'Write', hooks: [{ type: 'command', command: 'guard.sh' }] },
    ]);
    expect(j.hooks.PostToolUse).toEqual([
      { matcher: 'Bash|Read', hooks: [{ type: 'command', command: entry.command, timeout: 10 }] },
    ]);
  });

  it('creates the structure in a missing or empty file and removes it all again', async () => {
    const created = await edit(installHooks(undefined, entries, LEGACY));
    expect(JSON.parse(created.text)).toEqual({
      hooks: {
        PostToolUse: [
          { matcher: 'Bash|Read', hooks: [{ type: 'command', command: entry.command, timeout: 10 }] },
        ],
      },
    });
    const removed = (await edit(uninstallHooks(created.text, ['PostToolUse']))).text;
    expect(await isEmptyDocument(removed)).toBe(true);
  });

  it('removes only cg handlers from a group it shares with others', async () => {
    const shared = JSON.stringify({
      hooks: {
        PostToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: 'cg hook claude' },
              { type: 'command', command: 'log.sh' },
            ],
          },
        ],
      },
    });
    const out = JSON.parse((await edit(uninstallHooks(shared, ['PostToolUse']))).text);
    expect(out.hooks.PostToolUse).toEqual([
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'log.sh' }] },
    ]);
  });

  it('sets and removes a member of a top-level object without touching the rest', async () => {
    const set = await edit(
      setMember(HANDWRITTEN, 'mcpServers', 'cg', { command: 'node', args: ['cg.js', 'mcp'] }),
    );
    expect(await valueAt(set.text, ['mcpServers', 'cg', 'args'])).toEqual(['cg.js', 'mcp']);
    expect(set.text.startsWith(HANDWRITTEN.slice(0, -2))).toBe(true);
    expect((await edit(removeMember(set.text, 'mcpServers', 'cg'))).text).toBe(HANDWRITTEN);
  });

  it('refuses files it should not edit', async () => {
    expect((await installHooks('{ "hooks": ', entries, LEGACY)).ok).toBe(false);
    expect((await installHooks('[1, 2]', entries, LEGACY)).ok).toBe(false);
    expect((await installHooks('{"hooks": []}', entries, LEGACY)).ok).toBe(false);
    expect((await installHooks('{"hooks": {"PostToolUse": {}}}', entries, LEGACY)).ok).toBe(false);
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
