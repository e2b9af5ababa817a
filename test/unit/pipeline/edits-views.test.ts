/**
 * What a transcript component's edits() is handed: every output still in the body as read, with its
 * current text — or none, for a component that says its edits read only the messages (cacheinject),
 * so a long session's views are not made for nothing.
 */
import { describe, expect, it } from 'vitest';
import { agentSession } from '../../../bench/proxy-sessions.mjs';
import type { Component, EditProposal } from '../../../src/component.js';
import { cacheinject } from '../../../src/components/cacheinject.js';
import { readTranscript } from '../../../src/input/read.js';
import type { ToolOutput } from '../../../src/input/transcript.js';
import { runPipeline } from '../../../src/pipeline/run.js';
import { createTokens } from '../../../src/tokens.js';
import { MemoryStore } from '../../memory-store.js';

function editor(name: string, seen: (readonly ToolOutput[])[], fromMessages: boolean): Component {
  return {
    name,
    lossy: false,
    scope: 'transcript',
    summary: name,
    defaults: null,
    parseConfig: () => null,
    run: () => new Map(),
    edits(outputs): EditProposal[] {
      seen.push(outputs);
      return [];
    },
    ...(fromMessages ? { editsFromMessages: true as const } : {}),
  };
}

describe('edits()', () => {
  it('sees every output as read with its current text, unless it reads only the messages', async () => {
    const t = readTranscript(JSON.stringify(agentSession(6, { session: 'edits-1' })), 'anthropic', {});
    const pinned = t.outputs[0]!;
    const seen: (readonly ToolOutput[])[] = [];
    await runPipeline(t, {
      stages: [editor('all', seen, false), editor('messages', seen, true)].map((component) => ({
        component,
        config: null,
      })),
      store: new MemoryStore(),
      tokens: createTokens(),
      replay: { pins: new Map([[pinned.id, { text: '[sent before]', final: true }]]), flushTokens: 0 },
    });
    expect(seen[0]!.map((o) => o.id)).toEqual(t.outputs.map((o) => o.id));
    expect(seen[0]![0]).toMatchObject({ id: pinned.id, text: '[sent before]', isError: pinned.isError });
    expect(seen[0]![1]!.text).toBe(t.outputs[1]!.text);
    expect(seen[1]).toEqual([]);
  });

  it('of cacheinject reads only the messages, and still places its breakpoint', async () => {
    expect(cacheinject.editsFromMessages).toBe(true);
    const t = readTranscript(JSON.stringify(agentSession(6, { session: 'edits-2' })), 'anthropic', {});
    const r = await runPipeline(t, {
      stages: [{ component: cacheinject, config: cacheinject.defaults }],
      store: new MemoryStore(),
      tokens: createTokens(),
    });
    expect(r.edits.map((e) => e.kind)).toEqual(['cache_breakpoint']);
  });
});
