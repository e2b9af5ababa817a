import { describe, expect, it } from 'vitest';
import { clientTools, isExpandName, isShellName } from '../../../../src/proxy/retrieval/detect.js';

describe('a client that opens markers itself', () => {
  it("is one whose tools include a shell, by the words of the tool's name", () => {
    for (const name of [
      'Bash',
      'bash',
      'shell',
      'exec_command',
      'run_shell_command',
      'run_terminal_cmd',
      'execute_command',
      'runShellCommand',
      'zsh',
    ])
      expect(isShellName(name), name).toBe(true);
    for (const name of [
      'read_log',
      'search',
      'slash_commands',
      'publish',
      'ssh_keys',
      'get_weather',
      'bashful_greeting',
    ])
      expect(isShellName(name), name).toBe(false);
  });

  it("or a cg_expand of its own under any MCP prefix, but not a tool that only ends in 'expand'", () => {
    for (const name of ['cg_expand', 'mcp__cg__cg_expand', 'cg.cg_expand'])
      expect(isExpandName(name)).toBe(true);
    for (const name of ['expand', 'my_expand', 'cg_expander']) expect(isExpandName(name)).toBe(false);
  });

  it("is read from each format's tool shape, server tool types included", () => {
    expect(clientTools([{ type: 'function', function: { name: 'Bash' } }], 'openai')).toEqual({
      shell: true,
      expand: false,
    });
    expect(clientTools([{ type: 'local_shell' }], 'responses').shell).toBe(true);
    expect(clientTools([{ type: 'bash_20250124', name: 'bash' }], 'anthropic').shell).toBe(true);
    expect(clientTools([{ name: 'mcp__cg__cg_expand' }], 'anthropic')).toEqual({
      shell: false,
      expand: true,
    });
    expect(clientTools(undefined, 'openai')).toEqual({ shell: false, expand: false });
  });
});
