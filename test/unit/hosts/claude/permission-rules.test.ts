import { describe, expect, it } from 'vitest';
import {
  allowMatches,
  evaluateBash,
  mightMatch,
  type RuleSet,
} from '../../../../src/hosts/claude/permission-rules.js';

const rules = (r: Partial<RuleSet>): RuleSet => ({ allow: [], ask: [], deny: [], ...r });
const verdict = (command: string, r: Partial<RuleSet>, mode = 'default') =>
  evaluateBash(command, rules(r), mode).verdict;

describe('Claude Code Bash rule matching', () => {
  it('matches a prefix rule on the command or the prefix followed by a space, never a longer word', () => {
    expect(allowMatches('npm test:*', 'npm test')).toBe(true);
    expect(allowMatches('npm test:*', 'npm test -- --run')).toBe(true);
    expect(allowMatches('npm test:*', 'npm tests')).toBe(false);
    expect(allowMatches('git *', 'git log -n 3')).toBe(true);
    expect(allowMatches('git * --oneline', 'git log --oneline')).toBe(true);
    expect(allowMatches('pytest -q', 'pytest -q')).toBe(true);
    expect(allowMatches('pytest -q', 'pytest -q -x')).toBe(false);
  });

  it('takes a deny or ask rule to match wherever its program word appears in the script', () => {
    expect(mightMatch('Bash(git push:*)', 'make && git status')).toBe(true);
    expect(mightMatch('Bash(node:*)', "X=1 '/usr/bin/node' cg.js run -- pytest")).toBe(true);
    expect(mightMatch('Bash(git push:*)', 'pytest -q')).toBe(false);
    expect(mightMatch('Bash(gitk)', 'git status')).toBe(false);
    expect(mightMatch('Bash', 'anything')).toBe(true);
    expect(mightMatch('Bash(*)', 'anything')).toBe(true);
    expect(mightMatch('Read(./.env)', 'cat .env')).toBe(true);
    expect(mightMatch('Read(./.env)', 'pytest')).toBe(false);
    expect(mightMatch('Read(**)', 'pytest')).toBe(true);
    expect(mightMatch('mcp__cg__cg_expand', 'pytest')).toBe(false);
  });
});

describe('Claude Code permission verdicts for a Bash command', () => {
  it('allows only what an allow rule certainly matches', () => {
    expect(verdict('npm test', { allow: ['Bash(npm test:*)'] })).toBe('allow');
    expect(verdict('npm run build', { allow: ['Bash(npm test:*)'] })).toBe('unruled');
    expect(verdict('npm test', {})).toBe('unruled');
  });

  it('lets deny win over ask and ask over allow', () => {
    expect(verdict('git push', { allow: ['Bash(git:*)'], ask: ['Bash(git push:*)'] })).toBe('ask');
    expect(
      verdict('git push', { allow: ['Bash(git:*)'], ask: ['Bash(git:*)'], deny: ['Bash(git push:*)'] }),
    ).toBe('deny');
  });

  it('treats a deny or ask rule that might match as matching (cg leaves such a command alone)', () => {
    expect(
      verdict('pytest && git log', {
        allow: ['Bash(pytest:*)', 'Bash(git log:*)'],
        deny: ['Bash(git push:*)'],
      }),
    ).toBe('deny');
  });

  it('allows a compound command only when every part of it is allowed', () => {
    const allow = ['Bash(make:*)', 'Bash(pytest:*)'];
    expect(verdict('make && pytest -q', { allow })).toBe('allow');
    expect(verdict('make; pytest -q || true', { allow })).toBe('unruled');
    expect(verdict('make | tee log', { allow })).toBe('unruled');
    expect(verdict('make | pytest', { allow })).toBe('allow');
    expect(verdict('cd sub && pytest -q', { allow })).toBe('unruled');
  });

  it('allows a compound command an exact rule names whole', () => {
    expect(verdict('cd sub && pytest -q', { allow: ['Bash(cd sub && pytest -q)'] })).toBe('allow');
    expect(verdict('cd sub && pytest -q', { allow: ['Bash(cd sub:*)'] })).toBe('unruled');
  });

  it('cannot prove redirections, expansions, globs, env prefixes, background jobs or odd syntax', () => {
    const allow = ['Bash(pytest:*)'];
    expect(verdict('pytest > out.txt', { allow })).toBe('unruled');
    expect(verdict('pytest 2>/dev/null', { allow })).toBe('unruled');
    expect(verdict('pytest 2>&1', { allow })).toBe('allow');
    expect(verdict('pytest $ARGS', { allow })).toBe('unruled');
    expect(verdict('pytest "$(cat args)"', { allow })).toBe('unruled');
    expect(verdict('pytest tests/*.py', { allow })).toBe('unruled');
    expect(verdict('CI=1 pytest', { allow })).toBe('unruled');
    expect(verdict('CI=1 pytest', { allow: ['Bash(CI=1 pytest:*)'] })).toBe('unruled');
    expect(verdict('pytest &', { allow })).toBe('unruled');
    expect(verdict('if true; then pytest; fi', { allow })).toBe('unruled');
  });

  it('reads the command exactly as written: extra spaces are not the rule', () => {
    expect(verdict('python3  -m pytest', { allow: ['Bash(python3 -m pytest:*)'] })).toBe('unruled');
  });

  it('follows the permission mode', () => {
    const allow = ['Bash(pytest:*)'];
    for (const mode of ['default', 'acceptEdits', 'dontAsk'])
      expect(verdict('pytest', { allow }, mode)).toBe('allow');
    expect(verdict('pytest', {}, 'bypassPermissions')).toBe('allow');
    expect(verdict('pytest', { deny: ['Bash(pytest:*)'] }, 'bypassPermissions')).toBe('deny');
    expect(verdict('pytest', { ask: ['Bash(pytest:*)'] }, 'bypassPermissions')).toBe('ask');
    for (const mode of ['plan', 'auto', 'somethingNew', ''])
      expect(verdict('pytest', { allow }, mode)).toBe('unruled');
  });

  it('ignores rules of tools that do not touch a shell command', () => {
    expect(verdict('pytest', { allow: ['Bash(pytest:*)'], deny: ['mcp__x__y', 'Task'] })).toBe('allow');
    expect(verdict('pytest', { allow: ['Read', 'Bash(pytest:*)'] })).toBe('allow');
  });
});
