import { describe, expect, it } from 'vitest';
import { commandLabel } from '../../../src/stats/command-label.js';

describe('commandLabel', () => {
  it('groups by program and subcommand, not by the whole command line', () => {
    expect(commandLabel('git status -s')).toBe('git status');
    expect(commandLabel('git log --oneline -n 5')).toBe('git log');
    expect(commandLabel('pytest -x tests/test_a.py')).toBe('pytest');
    expect(commandLabel('pytest tests/test_b.py')).toBe('pytest');
    expect(commandLabel('cat README.md')).toBe('cat');
    expect(commandLabel('kubectl get pods -A')).toBe('kubectl get');
  });

  it('drops variable assignments, wrappers and the program directory', () => {
    expect(commandLabel('CI=1 FORCE_COLOR=0 npm test')).toBe('npm test');
    expect(commandLabel('sudo /usr/bin/apt-get install -y x')).toBe('apt-get install');
    expect(commandLabel('time make -j8')).toBe('make');
  });

  it('names outputs without a command plainly', () => {
    expect(commandLabel(undefined)).toBe('(no command)');
    expect(commandLabel('   ')).toBe('(no command)');
  });
});

describe('commandLabel, as programOf reads commands', () => {
  it('labels the step that does the work, past wrappers and launchers', () => {
    expect(commandLabel('cd app && pytest -q')).toBe('pytest');
    expect(commandLabel('sudo -E pytest -q')).toBe('pytest');
    expect(commandLabel('python3 -m pytest -x')).toBe('pytest');
    expect(commandLabel('npx vitest run')).toBe('vitest run');
  });
});
