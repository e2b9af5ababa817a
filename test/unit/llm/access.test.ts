import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelAccess } from '../../../src/llm/access.js';
import { parseModelConfig } from '../../../src/llm/endpoint.js';
import { type ModelServer, startModelServer, textReply } from '../../llm-server.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(textReply('ok'));
});
afterAll(() => server.close());

describe('the model as components see it', () => {
  const access = (maxOutputTokens: number) =>
    modelAccess(
      parseModelConfig({
        source: 'config',
        model: 'm',
        base_url: server.openaiBaseUrl,
        max_output_tokens: maxOutputTokens,
      }),
      { format: 'text' },
      { CG_MODEL_API_KEY: 'k' },
    );

  it('caps what a component asks for at model.max_output_tokens, and passes smaller asks through', async () => {
    const m = access(300);
    if (!m.available) throw new Error(m.reason);
    expect(await m.complete({ system: 's', prompt: 'p', maxTokens: 2500 })).toMatchObject({
      ok: true,
      text: 'ok',
    });
    await m.complete({ system: 's', prompt: 'p', maxTokens: 100 });
    await m.complete({ system: 's', prompt: 'p' });
    const asked = server.requests.map((r) => (r.body as { max_tokens: number }).max_tokens);
    expect(asked).toEqual([300, 100, 300]);
  });

  it('names the model it will ask, and its whole budget, never the key', () => {
    const m = access(300);
    expect(m).toMatchObject({ available: true, label: 'openai:m', budgetMs: 2 * 15000 + 2000 });
    expect(JSON.stringify(m)).not.toContain('"k"');
  });

  it('says why there is none', () => {
    expect(modelAccess(parseModelConfig({}), { format: 'text' }, {})).toEqual({
      available: false,
      reason: 'no model: the input names none and none is configured',
    });
  });
});
