import { describe, expect, it } from 'vitest';
import { hookAnswer } from '../../../src/commands/hook.js';
import { fakeFilters } from '../hook/fake-filters.js';

const SESSION = '5c0375b4-57a5-4f26-b12d-d022ee4e51b7';
/** What the hook puts in front of a wrapped command. */
const W = `CG_SESSION=${SESSION} cg run -- `;

/** A PreToolUse payload as Claude Code sends it for a Bash call. */
function claudePayload(command: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: SESSION,
    transcript_path: `/home/dev/.claude/projects/-home-dev-todo-app/${SESSION}.jsonl`,
    cwd: '/home/dev/todo-app',
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command, description: 'Run the command' },
    ...extra,
  });
}

/**
 * Commands as agents really send them (many taken from recorded Claude Code sessions in the shared
 * corpus), with exactly the command the hook must send back, or null for "print nothing".
 */
const TABLE: readonly [string, string, string | null][] = [
  // Test runners and builds: wrapped whole.
  ['a bare test runner', 'pytest', `${W}pytest`],
  [
    'python -m pytest with a path and -v',
    'python -m pytest tests/test_math_utils.py -v',
    `${W}python -m pytest tests/test_math_utils.py -v`,
  ],
  ['a quoted -k expression', 'pytest -q -k "parse and not slow"', `${W}pytest -q -k "parse and not slow"`],
  ['a quoted argument with spaces', "pytest 'tests/test api.py'", `${W}pytest 'tests/test api.py'`],
  ['cargo test with 2>&1', 'cargo test 2>&1', `${W}cargo test 2>&1`],
  ['cargo build --release', 'cargo build --release', `${W}cargo build --release`],
  ['go test ./...', 'go test ./...', `${W}go test ./...`],
  ['npm test', 'npm test', `${W}npm test`],
  ['npm run build', 'npm run build', `${W}npm run build`],
  ['npx tsc', 'npx tsc --noEmit', `${W}npx tsc --noEmit`],
  ['make', 'make', `${W}make`],
  ['make with flags and a target', 'make -j8 all', `${W}make -j8 all`],
  [
    'mix compile after an env assignment',
    'MIX_ENV=test mix compile --warnings-as-errors 2>&1',
    `MIX_ENV=test ${W}mix compile --warnings-as-errors 2>&1`,
  ],
  ['an env-prefixed test runner', 'FOO=1 pytest -x', `FOO=1 ${W}pytest -x`],
  ['a line continuation', 'pytest -x \\\n  tests/unit', `${W}pytest -x \\\n  tests/unit`],
  [
    'a command substitution in the arguments',
    "pytest $(git diff --name-only -- '*.py')",
    `${W}pytest $(git diff --name-only -- '*.py')`,
  ],
  [
    'backticks in the arguments',
    'go test `go list ./... | grep -v vendor`',
    `${W}go test \`go list ./... | grep -v vendor\``,
  ],
  ['stdin from a file', 'npm test < /dev/null', `${W}npm test < /dev/null`],
  // git
  ['git status', 'git status', `${W}git status`],
  ['git status --short', 'git status --short', `${W}git status --short`],
  ['git log', 'git log --oneline -20', `${W}git log --oneline -20`],
  ['git diff', 'git diff --stat', `${W}git diff --stat`],
  ['git branch (no filter)', 'git branch -a', null],
  [
    'git commit with a heredoc message',
    'git commit -m "$(cat <<\'EOF\'\nfix: keep exit codes\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)"',
    null,
  ],
  // Compound commands: only the parts that are safe and filtered.
  ['cd then a build', 'cd todo-app && npm run build', `cd todo-app && ${W}npm run build`],
  [
    'cd to an absolute path then tests',
    'cd /path/to/Demo/todo-app && npm test',
    `cd /path/to/Demo/todo-app && ${W}npm test`,
  ],
  ['export then tests', 'export NODE_ENV=test && npm test', `export NODE_ENV=test && ${W}npm test`],
  ['two commands joined by ;', 'make lint; make test', `${W}make lint; ${W}make test`],
  ['two git commands joined by &&', 'git status && git diff', `${W}git status && ${W}git diff`],
  ['|| with an echo fallback', 'npm test || echo "tests failed"', `${W}npm test || echo "tests failed"`],
  ['a background build, then tests', 'cargo build & cargo test', `cargo build & ${W}cargo test`],
  ['a command in the background', 'npm run dev &', null],
  ['a ( … ) subshell', '(cd sub && make)', null],
  ['a for loop', 'for f in tests/*.py; do pytest "$f"; done', null],
  ['time (a keyword)', 'time pytest', null],
  // Pipes and redirections: the agent shapes or stores the output itself.
  ['a pipe into tail', 'mix test --seed 0 2>&1 | tail -15', null],
  ['a pipe into head', 'git log --oneline | head -5', null],
  ['2>&1 | tee', 'cargo test 2>&1 | tee test.log', null],
  ['yes piped into a scaffolder', 'yes "" | npx create-next-app@latest todo-app --typescript', null],
  ['output redirected to a file', 'pytest > out.txt', null],
  ['output appended to a file with 2>&1', 'pytest >> out.txt 2>&1', null],
  ['stderr thrown away', 'npm run build 2>/dev/null', null],
  ['both streams to a file with &>', 'make &> build.log', null],
  ['stdout sent to stderr', 'make >&2', null],
  ['a heredoc into a file', "cat > types/todo.ts << 'EOF'\nexport interface Todo { id: string }\nEOF", null],
  // Interactive or endless programs.
  ['vim', 'vim src/main.rs', null],
  ['less', 'less build.log', null],
  ['top', 'top', null],
  ['ssh without a remote command', 'ssh build-host', null],
  ['a python REPL', 'python3', null],
  ['tail -f', 'tail -f /var/log/app.log', null],
  ['docker run -it', 'docker run -it ubuntu bash', null],
  ['a dev server script', 'npm run dev', null],
  ['a test runner in watch mode', 'npm test -- --watch', null],
  // Already wrapped, switched off, or not a program cg may wrap.
  ['already wrapped', 'cg run -- pytest -q', null],
  ['already wrapped with a session', `CG_SESSION=${SESSION} cg run -- make`, null],
  ['cg expand itself', 'cg expand 0123456789abcdef --lines 1-40', null],
  ['CG_DISABLE=1 in front', 'CG_DISABLE=1 pytest', null],
  ['sudo apt-get install', 'sudo apt-get install -y ripgrep', null],
  ['a shell builtin', 'echo hello', null],
  ['cd alone', 'cd todo-app', null],
  ['a quoted program name', '"pytest" -q', null],
  ['an unterminated quote', "pytest -k 'broken", null],
  ['a command no filter handles', './scripts/deploy.sh staging', null],
  ['ls (a filter handles it)', 'ls -la', `${W}ls -la`],
];

describe('cg hook claude on recorded PreToolUse payloads', () => {
  it('has a table of at least 40 real-looking commands', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
  });

  for (const [what, command, expected] of TABLE) {
    it(`${expected === null ? 'leaves alone' : 'wraps'}: ${what}`, async () => {
      const answer = await hookAnswer('claude', claudePayload(command), { filters: fakeFilters, env: {} });
      if (expected === null) {
        expect(answer).toBeUndefined();
        return;
      }
      expect(answer).toBeDefined();
      expect(answer!.endsWith('\n')).toBe(true);
      expect(JSON.parse(answer!)).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          updatedInput: { command: expected, description: 'Run the command' },
        },
      });
    });
  }

  it('prints exactly one JSON line with the whole tool_input and no permissionDecision', async () => {
    const payload = claudePayload('cargo test', {
      tool_input: { command: 'cargo test', description: 'Run tests', timeout: 600000 },
    });
    const answer = await hookAnswer('claude', payload, { filters: fakeFilters, env: {} });
    expect(answer).toBe(
      `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"${W}cargo test","description":"Run tests","timeout":600000}}}\n`,
    );
    expect(answer).not.toContain('permissionDecision');
  });

  it('gives no output for its own rewrite (running the hook twice changes nothing)', async () => {
    for (const [, , expected] of TABLE) {
      if (expected === null) continue;
      expect(
        await hookAnswer('claude', claudePayload(expected), { filters: fakeFilters, env: {} }),
      ).toBeUndefined();
    }
  });

  it('prints nothing when CG_DISABLE=1 is set for the hook', async () => {
    const answer = await hookAnswer('claude', claudePayload('pytest'), {
      filters: fakeFilters,
      env: { CG_DISABLE: '1' },
    });
    expect(answer).toBeUndefined();
  });

  it('leaves other tools, other events and background Bash calls alone', async () => {
    const read = JSON.stringify({
      session_id: SESSION,
      hook_event_name: 'PreToolUse',
      tool_name: 'Read',
      tool_input: { file_path: '/x' },
    });
    const post = claudePayload('pytest', { hook_event_name: 'PostToolUse' });
    const bg = claudePayload('pytest', { tool_input: { command: 'pytest', run_in_background: true } });
    for (const p of [read, post, bg])
      expect(await hookAnswer('claude', p, { filters: fakeFilters, env: {} })).toBeUndefined();
  });

  it('prints nothing on input it cannot read, or when the filters fail to load', async () => {
    for (const p of ['', 'not json', '[]', '{"tool_name":"Bash","tool_input":{"command":42}}'])
      expect(await hookAnswer('claude', p, { filters: fakeFilters, env: {} })).toBeUndefined();
    const broken = () => {
      throw new Error('bad filter file');
    };
    expect(await hookAnswer('claude', claudePayload('pytest'), { filters: broken, env: {} })).toBeUndefined();
  });

  it('wraps without CG_SESSION when the payload has no usable session id', async () => {
    for (const session_id of [undefined, '', 'x y; rm -rf /']) {
      const answer = await hookAnswer('claude', claudePayload('make', { session_id }), {
        filters: fakeFilters,
        env: {},
      });
      expect(JSON.parse(answer!).hookSpecificOutput.updatedInput.command).toBe('cg run -- make');
    }
  });

  it('asks the filters about each candidate command alone, and only about candidates', async () => {
    const filters = fakeFilters();
    await hookAnswer('claude', claudePayload('cd app && FOO=1 make -j2 && vim x && git log | head'), {
      filters: () => filters,
      env: {},
    });
    expect(filters.asked).toEqual(['make -j2']);
  });

  it('looks filters up for the directory the agent works in', async () => {
    const dirs: string[] = [];
    await hookAnswer('claude', claudePayload('make'), {
      filters: (cwd) => {
        dirs.push(cwd);
        return fakeFilters();
      },
      env: {},
    });
    expect(dirs).toEqual(['/home/dev/todo-app']);
  });
});

describe('cg hook codex', () => {
  const codexPayload = (command: unknown, tool_name = 'Bash') =>
    JSON.stringify({
      session_id: '019a5f3c-8e2b-7d41-9c0e-2f6a1b3c4d5e',
      turn_id: '1',
      transcript_path: null,
      cwd: '/home/dev/todo-app',
      hook_event_name: 'PreToolUse',
      model: 'gpt-5-codex',
      permission_mode: 'default',
      tool_name,
      tool_use_id: 'call_abc123',
      tool_input: { command },
    });

  it('rewrites with the allow decision Codex requires next to updatedInput', async () => {
    const answer = await hookAnswer('codex', codexPayload('cargo test'), { filters: fakeFilters, env: {} });
    expect(JSON.parse(answer!)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: { command: 'CG_SESSION=019a5f3c-8e2b-7d41-9c0e-2f6a1b3c4d5e cg run -- cargo test' },
      },
    });
  });

  it('prints nothing for what it leaves alone, and for an argv-style command', async () => {
    for (const p of [
      codexPayload('git log | head'),
      codexPayload(['bash', '-lc', 'cargo test']),
      codexPayload('make', 'apply_patch'),
    ])
      expect(await hookAnswer('codex', p, { filters: fakeFilters, env: {} })).toBeUndefined();
  });
});
