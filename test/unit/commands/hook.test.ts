import { describe, expect, it } from 'vitest';
import { hookAnswer } from '../../../src/commands/hook.js';
import type { PolicyCheck } from '../../../src/hosts/codex/policy.js';
import { fakeFilters } from '../hosts/hook/fake-filters.js';

const SESSION = '5c0375b4-57a5-4f26-b12d-d022ee4e51b7';
/** What the hook puts in front of a wrapped command (cg named plainly in these tests). */
const W = `CG_SESSION=${SESSION} CG_READER=model CG_HOST=codex CG_VIA=hook cg run -- `;

/** Codex's policy engine, standing in: no rule names anything. */
const noRules: PolicyCheck = async () => ({ matched: false });
const deps = (extra = {}) => ({
  filters: fakeFilters,
  env: {},
  policy: noRules,
  invocation: 'cg',
  ...extra,
});

/** A PreToolUse payload as Codex sends it for its shell tool. */
function payload(command: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: SESSION,
    turn_id: '1',
    transcript_path: null,
    cwd: '/home/dev/todo-app',
    hook_event_name: 'PreToolUse',
    model: 'gpt-5-codex',
    permission_mode: 'default',
    tool_name: 'Bash',
    tool_use_id: 'call_abc123',
    tool_input: { command },
    ...extra,
  });
}

/**
 * Commands as agents really send them (many taken from recorded sessions in the shared corpus),
 * with exactly the command the hook must send back, or null for "print nothing".
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
    `${W}env MIX_ENV=test mix compile --warnings-as-errors 2>&1`,
  ],
  ['an env-prefixed test runner', 'FOO=1 pytest -x', `${W}env FOO=1 pytest -x`],
  // The command's own environment stays the command's (cg's own invocation is insulated from it).
  ['a PATH for the command', 'PATH=/opt/py/bin pytest', `${W}env PATH=/opt/py/bin pytest`],
  ['a cache dir for the command', 'XDG_CACHE_HOME=/x pytest', `${W}env XDG_CACHE_HOME=/x pytest`],
  [
    'NODE_OPTIONS for the command',
    'NODE_OPTIONS="--require ./missing.js" pytest',
    `${W}env NODE_OPTIONS="--require ./missing.js" pytest`,
  ],
  ['an array assignment', 'arr[0]=1 pytest', null],
  ['an assignment the shell expands', 'X=$HOME/a pytest', null],
  ['an appending assignment', 'X+=1 pytest', null],
  ['a line continuation', 'pytest -x \\\n  tests/unit', `${W}pytest -x \\\n  tests/unit`],
  [
    'a command substitution in the arguments (Codex rules cannot be checked)',
    "pytest $(git diff --name-only -- '*.py')",
    null,
  ],
  [
    'backticks in the arguments (Codex rules cannot be checked)',
    'go test `go list ./... | grep -v vendor`',
    null,
  ],
  ['stdin from a file', 'npm test < /dev/null', `${W}npm test < /dev/null`],
  // git
  ['git status', 'git status', `${W}git status`],
  ['git status --short', 'git status --short', `${W}git status --short`],
  ['git log', 'git log --oneline -20', `${W}git log --oneline -20`],
  ['git diff', 'git diff --stat', `${W}git diff --stat`],
  ['git branch (Codex may ask about it)', 'git branch -a', null],
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
  ['cat of a log (read-only, output-heavy)', 'cat logs/app.log', `${W}cat logs/app.log`],
  ['grep -rn (read-only, output-heavy)', 'grep -rn TODO src', `${W}grep -rn TODO src`],
  ['git push (Codex may ask about it)', 'git push --force origin main', null],
];

describe('cg hook codex on recorded PreToolUse payloads', () => {
  it('has a table of at least 40 real-looking commands', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
  });

  for (const [what, command, expected] of TABLE) {
    it(`${expected === null ? 'leaves alone' : 'wraps'}: ${what}`, async () => {
      const answer = await hookAnswer('codex', payload(command), deps());
      if (expected === null) {
        expect(answer).toBeUndefined();
        return;
      }
      expect(answer!.endsWith('\n')).toBe(true);
      expect(JSON.parse(answer!)).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'allow',
          updatedInput: { command: expected },
        },
      });
    });
  }

  it('gives no output for its own rewrite (running the hook twice changes nothing)', async () => {
    for (const [, , expected] of TABLE) {
      if (expected === null) continue;
      expect(await hookAnswer('codex', payload(expected), deps())).toBeUndefined();
    }
  });

  it('names cg by absolute path by default: node and the cg script', async () => {
    const answer = await hookAnswer('codex', payload('make'), { ...deps(), invocation: undefined });
    const command = JSON.parse(answer!).hookSpecificOutput.updatedInput.command as string;
    expect(command).toContain(`${process.execPath} `);
    expect(command).toMatch(
      /^CG_SESSION=\S+ CG_READER=model CG_HOST=codex CG_VIA=hook \/\S+ \/\S+ run -- make$/,
    );
  });

  it('leaves a command alone when a Codex rule names it or cg, and asks about every command of a list', async () => {
    const asked: string[][][] = [];
    const ruled: PolicyCheck = async (argvs) => {
      asked.push(argvs.map((a) => [...a]));
      return argvs.some((a) => a[0] === 'git') ? { matched: true, why: 'a rule' } : { matched: false };
    };
    expect(await hookAnswer('codex', payload('git status'), deps({ policy: ruled }))).toBeUndefined();
    expect(await hookAnswer('codex', payload('git status && make'), deps({ policy: ruled }))).toBeUndefined();
    expect(await hookAnswer('codex', payload('cd sub && make -j2'), deps({ policy: ruled }))).toBeDefined();
    expect(asked.at(-1)).toEqual([
      ['cd', 'sub'],
      ['make', '-j2'],
      ['cg', 'run', '--'],
    ]);
  });

  it('leaves a command alone when a word depends on the shell, since the rules cannot be checked', async () => {
    expect(await hookAnswer('codex', payload('make $TARGET'), deps())).toBeUndefined();
  });

  it('prints nothing when CG_DISABLE=1 is set for the hook', async () => {
    expect(await hookAnswer('codex', payload('pytest'), deps({ env: { CG_DISABLE: '1' } }))).toBeUndefined();
  });

  it('prints nothing on input it cannot read, for other tools, or when the filters fail to load', async () => {
    for (const p of [
      '',
      'not json',
      '[]',
      payload(42),
      payload(['bash', '-lc', 'cargo test']),
      payload('make', { tool_name: 'apply_patch' }),
    ])
      expect(await hookAnswer('codex', p, deps())).toBeUndefined();
    const broken = () => {
      throw new Error('bad filter file');
    };
    expect(await hookAnswer('codex', payload('pytest'), deps({ filters: broken }))).toBeUndefined();
  });

  it('wraps without CG_SESSION when the payload has no usable session id', async () => {
    for (const session_id of [undefined, '', 'x y; rm -rf /']) {
      const answer = await hookAnswer('codex', payload('make', { session_id }), deps());
      expect(JSON.parse(answer!).hookSpecificOutput.updatedInput.command).toBe(
        'CG_READER=model CG_HOST=codex CG_VIA=hook cg run -- make',
      );
    }
  });

  it('looks filters up for the directory the agent works in', async () => {
    const dirs: string[] = [];
    await hookAnswer(
      'codex',
      payload('make'),
      deps({
        filters: (cwd: string) => {
          dirs.push(cwd);
          return fakeFilters();
        },
      }),
    );
    expect(dirs).toEqual(['/home/dev/todo-app']);
  });
});

describe('cg hook claude', () => {
  it('does nothing for a PreToolUse call: the command runs exactly as the user approved it', async () => {
    for (const command of ['pytest', 'git status', 'cargo test 2>&1']) {
      const pre = payload(command, { permission_mode: 'default' });
      expect(await hookAnswer('claude', pre, deps())).toBeUndefined();
    }
  });

  it('leaves a small PostToolUse output alone without loading anything', async () => {
    const post = JSON.stringify({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_response: { stdout: 'a\nb\n', stderr: '', interrupted: false, isImage: false },
    });
    const lines: string[] = [];
    expect(await hookAnswer('claude', post, deps({ debug: (l: string) => lines.push(l) }))).toBeUndefined();
    expect(lines.join('\n')).toMatch(/under 1024 characters/);
  });
});
