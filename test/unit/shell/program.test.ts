/**
 * programOf over real command lines: the cases, then commands agents ran in the corpus
 * sessions (Claude Code Bash calls in ../shared/corpus/transcripts, copied here so the table runs
 * without the corpus) and in Codex/SWE-agent trajectories.
 */
import { describe, expect, it } from 'vitest';
import { commandKey, isReadCommand, programOf } from '../../../src/shell/program.js';

/** [command line, label, files read (undefined: not a read)] */
const TABLE: [string, string, string[] | undefined][] = [
  // The cases.
  ['cd app && pytest -q', 'pytest', undefined],
  ['sudo -E pytest -q', 'pytest', undefined],
  ['FOO=1 pytest', 'pytest', undefined],
  ['sudo cat log.txt', 'cat', ['log.txt']],
  ['python3 -m pytest', 'pytest', undefined],
  ['npx vitest run', 'vitest run', undefined],
  ['npm test', 'npm test', undefined],
  // Claude Code sessions in the corpus.
  ['git status', 'git status', []],
  ['python -m pytest tests/test_math_utils.py -v', 'pytest', undefined],
  ['cargo init --lib --name python_utils', 'cargo init', undefined],
  ['cargo test 2>&1', 'cargo test', undefined],
  ['cargo install cargo-llvm-cov 2>&1 | tail -20', 'cargo install', undefined],
  ['cargo llvm-cov --fail-under-lines 100 2>&1', 'cargo llvm-cov', undefined],
  ['rm /tmp/tmpqwh7888i/pyproject.toml /tmp/tmpqwh7888i/uv.lock', 'rm', undefined],
  ['just check 2>&1', 'just check', undefined],
  [
    'find /tmp/tmpqwh7888i -type f \\( -name "*.rs" -o -name "Cargo.toml" \\) | head -20',
    'find',
    ['/tmp/tmpqwh7888i'],
  ],
  ['git log --oneline -3', 'git log', []],
  [
    'bd ready 2>/dev/null; echo "---"; bd list --status=open 2>/dev/null; echo "---"; bd list --status=in_progress 2>/dev/null',
    'bd list',
    undefined,
  ],
  ['git log --oneline master..HEAD 2>/dev/null || echo "No divergence from master"', 'git log', []],
  [
    'bd update spotter-gqc --status in_progress && bd update spotter-gqc.1 --status in_progress',
    'bd update',
    undefined,
  ],
  ['mix ash.codegen add_annotation_message_refs_and_source --yes 2>&1', 'mix', undefined],
  ['mix deps.compile --force ash ash_sqlite 2>&1 | tail -5', 'mix', undefined],
  [
    'mix compile --warnings-as-errors 2>&1 && mix test test/spotter/transcripts/resources_test.exs 2>&1 | tail -10',
    'mix test',
    undefined,
  ],
  ['tail -30 /tmp/claude-1000/tasks/bd0afab.output', 'tail', ['/tmp/claude-1000/tasks/bd0afab.output']],
  ['mix test 2>&1 | tail -5', 'mix test', undefined],
  ['git push --set-upstream origin spotter-gqc 2>&1', 'git push', undefined],
  ['bd sync --from-main 2>&1 && bd ready 2>&1', 'bd ready', undefined],
  ['bd list --status=open 2>&1 | grep gqc', 'bd list', undefined],
  ['bd show spotter-gqc.5 2>&1; echo "==="; bd show spotter-gqc.6 2>&1', 'bd show', undefined],
  [
    'ls -la _build/dev/lib/spotter/priv/repo/migrations/',
    'ls',
    ['_build/dev/lib/spotter/priv/repo/migrations/'],
  ],
  ['chmod +x spotter-plugin/scripts/review-context-session-start.sh', 'chmod', undefined],
  ['grep -A 2 opentelemetry_bandit mix.lock', 'grep', ['mix.lock']],
  [
    'grep -r "set_text_map" deps/opentelemetry*/src/ 2>/dev/null | head -10',
    'grep',
    ['deps/opentelemetry*/src/'],
  ],
  ['mix test --seed 0 2>&1 | head -100', 'mix test', undefined],
  [
    `MIX_ENV=test mix run -e 'require Logger; Logger.info("started")' 2>&1 | grep -E "error|warn" | head -10`,
    'mix run',
    undefined,
  ],
  ['bash -n spotter-plugin/scripts/lib/trace_context.sh && echo "✓ trace_context.sh OK"', 'bash', undefined],
  [
    'mix format --check-formatted 2>&1; echo "---"; mix credo --strict 2>&1 | tail -20',
    'mix credo',
    undefined,
  ],
  ['git add .beads/ && git diff --cached --stat', 'git diff', []],
  ['git push 2>&1', 'git push', undefined],
  ['bd sync 2>&1 && git push 2>&1', 'git push', undefined],
  ['source .venv/bin/activate && pytest tests/ -x', 'pytest', undefined],
  // Codex argv joined by the reader, SWE-agent and other agents' shapes.
  ['bash -lc cd app && npm test', 'npm test', undefined],
  ["bash -lc 'python3 -m pytest -q tests/test_api.py'", 'pytest', undefined],
  ['sed -n 1,80p src/app.py', 'sed', ['src/app.py']],
  ['sed -i s/1/2/ m.py', 'sed', undefined],
  ['head -n 50 out.txt', 'head', ['out.txt']],
  ['/usr/bin/head -50 out.txt', 'head', ['out.txt']],
  ['rg -n "def main" src', 'rg', ['src']],
  ['cd /repo && git show HEAD:crash.log', 'git show', []],
  ['git -C /repo diff --stat', 'git diff', []],
  ['git commit -m "fix: x"', 'git commit', undefined],
  ['timeout 300 go test ./...', 'go test', undefined],
  ['env -i PATH=/usr/bin CI=1 npm run build', 'npm run', undefined],
  ['time make -j8', 'make', undefined],
  ['nice -n 10 make check', 'make check', undefined],
  ['uv run pytest -k smoke', 'pytest', undefined],
  ['poetry run mypy --strict src', 'mypy', undefined],
  ['bundle exec rspec spec/models', 'rspec', undefined],
  ['pnpm exec tsc --noEmit', 'tsc', undefined],
  ['npm exec -- eslint .', 'eslint', undefined],
  ['sudo -u www-data php artisan migrate', 'php artisan', undefined],
  ['CI=1 FORCE_COLOR=0 npm test', 'npm test', undefined],
  ['sudo /usr/bin/apt-get install -y x', 'apt-get install', undefined],
  ['python reproduce.py', 'python', undefined],
  ['kubectl -n prod get pods -A', 'kubectl get', undefined],
  ['cat <<EOF > notes.txt\nhello\nEOF', 'cat', []],
  // Compound commands are beyond the shell reader: the first words still name something.
  ['for f in *.py; do python $f; done', 'for f', undefined],
];

describe('programOf', () => {
  it.each(TABLE)('%j → %s', (command, label, reads) => {
    const p = programOf(command);
    expect(p?.label).toBe(label);
    expect(p?.reads).toEqual(reads);
  });

  it('holds at least forty real command lines', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
  });

  it('has no program for an empty command or bare assignments', () => {
    expect(programOf('')).toBeUndefined();
    expect(programOf('   ')).toBeUndefined();
    expect(programOf('FOO=1 BAR=2')).toBeUndefined();
  });

  it('calls the same command the same up to whitespace', () => {
    expect(commandKey('pytest  -q\n')).toBe(commandKey(' pytest -q'));
    expect(commandKey('pytest -q')).not.toBe(commandKey('pytest -x'));
  });

  it('knows a read from a run', () => {
    expect(isReadCommand('sudo cat log.txt')).toBe(true);
    expect(isReadCommand('pytest -q | tail -20')).toBe(false);
    expect(isReadCommand(undefined)).toBe(false);
  });
});
