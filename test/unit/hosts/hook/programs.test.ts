import { describe, expect, it } from 'vitest';
import { interactiveReason, isBuiltin, isPrivileged } from '../../../../src/hosts/hook/programs.js';

const interactive = (cmd: string) => {
  const [name, ...args] = cmd.split(' ');
  return interactiveReason(name!, args) !== undefined;
};

describe('what cg knows about programs', () => {
  it('knows the builtins that must run in the agent shell, and privilege changers', () => {
    for (const b of ['cd', 'export', 'source', '.', 'eval', 'exec', 'set', 'alias'])
      expect(isBuiltin(b)).toBe(true);
    for (const p of ['make', 'git', 'pytest']) expect(isBuiltin(p)).toBe(false);
    expect(isPrivileged('sudo')).toBe(true);
    expect(isPrivileged('make')).toBe(false);
  });

  it('finds interactive and endless invocations', () => {
    for (const cmd of [
      'vim x',
      'less log',
      'python',
      'python3 -i script.py',
      'node',
      'bash',
      'ssh host',
      'ssh -p 2222 host',
      'ssh -t host top',
      'psql mydb',
      'sqlite3 app.db',
      'tail -f log',
      'tail -n 20 -F log',
      'journalctl -fu nginx',
      'docker run -it ubuntu',
      'docker exec -ti c sh',
      'kubectl exec -it pod -- sh',
      'docker logs --follow c',
      'git add -p',
      'git rebase -i HEAD~3',
      'git commit',
      'git commit --amend',
      'npm start',
      'pnpm run dev',
      'yarn serve',
      'npm init',
      'jest --watch',
      'tsc --watch',
    ])
      expect(interactive(cmd), cmd).toBe(true);
  });

  it('lets the batch forms of the same programs through', () => {
    for (const cmd of [
      'python script.py',
      'python -m pytest',
      'python3 -c print(1)',
      'python --version',
      'node build.js',
      'node -e 1',
      'bash build.sh',
      'sh -c make',
      'ssh host uptime',
      'ssh -p 2222 host make test',
      'psql -c select',
      'sqlite3 app.db select',
      'tail -n 50 log',
      'docker run ubuntu echo hi',
      'docker logs c',
      'git add -A',
      'git commit -m msg',
      'git commit -am msg',
      'git commit --amend --no-edit',
      'npm test',
      'npm run build',
      'git log',
      'make',
    ])
      expect(interactive(cmd), cmd).toBe(false);
  });
});
