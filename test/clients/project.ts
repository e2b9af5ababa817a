/**
 * The project the scripted sessions work in, generated fresh for each run: a Python package whose
 * test suite fails (150 tests, 4 failing, with long assertion diffs), a `sub/` package with its own
 * failing tests, a git history of 25 commits with real diffs and uncommitted changes, a large
 * application log and a 600-line source file. Deterministic apart from pytest's timings.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function write(dir: string, path: string, text: string): void {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
}

function tests(module: string, count: number, failing: ReadonlySet<number>): string {
  const out = [`from ${module} import scale, describe\n\n`];
  for (let i = 0; i < count; i++) {
    if (failing.has(i)) {
      out.push(
        `def test_case_${i}():\n    got = describe(${i})\n    want = {"id": ${i}, "label": "item-${i}", "tags": ${JSON.stringify(
          Array.from({ length: 12 }, (_, j) => `tag-${j}`),
        )}, "score": ${i + 0.5}}\n    assert got == want, f"record {${i}} differs"\n\n`,
      );
    } else {
      out.push(`def test_case_${i}():\n    assert scale(${i}) == ${i * 3}\n\n`);
    }
  }
  return out.join('');
}

const LIB = `def scale(x):
    return x * 3


def describe(i):
    return {"id": i, "label": "item-%d" % i, "tags": ["tag-%d" % j for j in range(11)], "score": i}
`;

/** 600 lines: 40 functions of 14 lines each behind a header. */
function bigSource(): string {
  const lines = [
    '"""Inventory rules: pricing, stock and reporting helpers."""',
    'import math',
    'from dataclasses import dataclass',
    '',
    '',
  ];
  for (let f = 0; lines.length < 590; f++) {
    lines.push(`def rule_${f}(stock, price, rate=0.${(f % 9) + 1}):`);
    lines.push(`    """Rule ${f}: adjusts a price for the stock level."""`);
    for (let j = 0; j < 10; j++)
      lines.push(`    step_${j} = math.floor(stock * rate * ${j + 1} + price / ${f + j + 1})`);
    lines.push(`    return sum([${Array.from({ length: 10 }, (_, j) => `step_${j}`).join(', ')}])`);
    lines.push('');
  }
  while (lines.length < 600) lines.push(`# padding ${lines.length}`);
  return `${lines.join('\n')}\n`;
}

function appLog(): string {
  const levels = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'INFO', 'ERROR'];
  const lines: string[] = [];
  for (let i = 0; i < 3000; i++) {
    const t = new Date(Date.UTC(2026, 10, 1, 8, 0, 0) + i * 1370).toISOString();
    lines.push(
      `${t} ${levels[i % levels.length]} [worker-${i % 8}] request id=${(i * 2654435761) % 1000003} path=/api/v1/items/${i % 97} status=${i % 53 === 0 ? 500 : 200} took=${(i * 7) % 250}ms`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Dev',
  GIT_AUTHOR_EMAIL: 'dev@example.com',
  GIT_COMMITTER_NAME: 'Dev',
  GIT_COMMITTER_EMAIL: 'dev@example.com',
  // Fixed dates: the same project gets the same commit ids in every world.
  GIT_AUTHOR_DATE: '2026-11-02T10:00:00Z',
  GIT_COMMITTER_DATE: '2026-11-02T10:00:00Z',
};

function git(dir: string, ...args: string[]): void {
  execFileSync('git', args, { cwd: dir, env: GIT_ENV, stdio: 'ignore' });
}

/** Lays out the project in dir (an empty directory). */
export function makeProject(dir: string): void {
  write(dir, 'calc.py', LIB);
  write(dir, 'tests/test_calc.py', tests('calc', 150, new Set([17, 61, 99, 140])));
  write(dir, 'sub/calc.py', LIB);
  write(dir, 'sub/tests/test_sub.py', tests('calc', 40, new Set([5, 33])));
  write(dir, 'src/big.py', bigSource());
  write(dir, 'logs/app.log', appLog());
  write(dir, 'pytest.ini', '[pytest]\npythonpath = .\n');
  write(dir, 'sub/pytest.ini', '[pytest]\npythonpath = .\n');
  write(dir, '.gitignore', '__pycache__/\n.pytest_cache/\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'Initial import');
  for (let c = 1; c <= 25; c++) {
    const notes = Array.from(
      { length: 30 },
      (_, i) => `- note ${c}.${i}: threshold for rule ${(c * 7 + i) % 40} is ${(c * 13 + i) % 97}`,
    );
    write(dir, `docs/notes-${c % 5}.md`, `# Notes ${c % 5}\n\n${notes.join('\n')}\n`);
    write(dir, 'calc.py', `${LIB}\n# revision ${c}\nLIMIT_${c} = ${c * 11}\n`);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', `Tune thresholds, revision ${c}`);
  }
  write(dir, 'calc.py', `${LIB}\n# work in progress\n`);
  write(dir, 'scratch.txt', 'todo\n');
}
