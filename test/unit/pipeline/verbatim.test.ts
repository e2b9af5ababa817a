import { describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../../src/input/transcript.js';
import { alwaysVerbatim } from '../../../src/pipeline/verbatim.js';

const output = (o: Partial<ToolOutput>): ToolOutput => ({
  id: 't0',
  text: 'x',
  rewritable: true,
  isError: false,
  messageIndex: 0,
  ...o,
});

describe('alwaysVerbatim', () => {
  it("keeps a cg_expand result under any host's MCP prefix as it is", () => {
    for (const toolName of ['cg_expand', 'mcp__cg__cg_expand', 'cg.cg_expand', 'cg:cg_expand'])
      expect(alwaysVerbatim(output({ toolName })), toolName).toBe('cg expand output');
  });

  it('does not take a tool whose name merely ends in the letters for cg_expand', () => {
    expect(alwaysVerbatim(output({ toolName: 'mycg_expand' }))).toBeUndefined();
    expect(alwaysVerbatim(output({ toolName: 'Bash' }))).toBeUndefined();
  });
});
