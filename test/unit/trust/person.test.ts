import { describe, expect, it } from 'vitest';
import { HOSTS } from '../../../src/hosts/index.js';
import { type Presence, whyNoPerson } from '../../../src/trust/person.js';

const at = (env: NodeJS.ProcessEnv, terminals: readonly number[] = [0, 1]): Presence => ({
  env,
  isTerminal: (fd) => terminals.includes(fd),
});

describe('whether a person is there to trust a project', () => {
  it('is so on a terminal (stdin and stdout) with no agent host around', () => {
    expect(whyNoPerson(at({ PATH: '/usr/bin', TERM: 'xterm-256color' }))).toBeUndefined();
  });

  it('is not when stdin or stdout is no terminal, and says which', () => {
    expect(whyNoPerson(at({}, []))).toMatch(/^refusing without a terminal \(stdin and stdout are not one\)/);
    expect(whyNoPerson(at({}, [1]))).toMatch(/\(stdin is not one\)/);
    // `cg trust | tee log`: what the config may now do would not be seen.
    expect(whyNoPerson(at({}, [0]))).toMatch(/\(stdout is not one\)/);
  });

  it("is not inside any host's tool call, even on a terminal, naming the host and the variable", () => {
    for (const host of HOSTS) {
      for (const name of host.agentEnv) {
        expect(whyNoPerson(at({ [name]: '1' }))).toBe(
          `refusing inside ${host.title}'s tool call (${name} is set): trusting a project is for a person at a terminal; run \`cg trust\` in your own shell`,
        );
      }
    }
  });

  it('reads an empty marker as unset, as a shell that cleared it would leave it', () => {
    expect(whyNoPerson(at({ CLAUDECODE: '', GEMINI_CLI: '' }))).toBeUndefined();
  });
});
