// Generated agent sessions for the proxy's turn-cost benchmark and tests: an Anthropic Messages
// body as Claude Code sends it (system blocks, metadata.user_id, tool_use / tool_result pairs),
// with `results` tool results of varied size and kind (shell output, file reads, search hits,
// test runs). Deterministic: the same arguments give the same bytes.

const WORDS = 'alpha beta gamma delta error warning request handler module config value token cache'.split(
  ' ',
);

/** A small deterministic PRNG (mulberry32), so bodies are reproducible. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function lines(rand, n, make) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(make(i, rand));
  return `${out.join('\n')}\n`;
}

/** One tool call and its result; kind and size vary with i. */
function toolPair(i, rand) {
  const id = `toolu_${String(i).padStart(6, '0')}${Math.floor(rand() * 1e9).toString(36)}`;
  const kind = i % 4;
  const n = 4 + Math.floor(rand() * rand() * 60);
  if (kind === 0) {
    const command = `grep -rn "${WORDS[i % WORDS.length]}" src/`;
    const text = lines(
      rand,
      n,
      (k) =>
        `src/mod${k % 17}/file${i % 31}.ts:${k * 7 + 1}: const ${WORDS[k % WORDS.length]} = ${Math.floor(rand() * 1e6)};`,
    );
    return { call: { name: 'Bash', input: { command, description: 'search' } }, id, text };
  }
  if (kind === 1) {
    const path = `/repo/src/pkg${i % 13}/mod${i}.ts`;
    const text = lines(
      rand,
      n,
      (k) =>
        `${String(k + 1).padStart(6)}→export function f${k}_${i}(x: number) { return x * ${k} + ${Math.floor(rand() * 100)}; }`,
    );
    return { call: { name: 'Read', input: { file_path: path } }, id, text };
  }
  if (kind === 2) {
    const command = 'npm test';
    const text = lines(rand, n, (k) =>
      k % 11 === 5
        ? `  ✗ case ${k} failed: expected ${k} got ${k + 1}`
        : `  ✓ case ${k} (${Math.floor(rand() * 40)} ms)`,
    );
    return { call: { name: 'Bash', input: { command, description: 'tests' } }, id, text };
  }
  const command = `ls -la /repo/dir${i % 23}`;
  const text = lines(
    rand,
    n,
    (k) =>
      `-rw-r--r--  1 dev dev ${Math.floor(rand() * 99999)} Nov ${1 + (k % 28)} 10:${String(k % 60).padStart(2, '0')} file_${k}_${i}.txt`,
  );
  return { call: { name: 'Bash', input: { command, description: 'list' } }, id, text };
}

/**
 * The body of a session with `results` tool results (one per turn), as Claude Code would send it at
 * its last turn. `session` is the uuid part of metadata.user_id.
 */
export function agentSession(results, { seed = 1, session = '00000000-0000-4000-8000-000000000001' } = {}) {
  const rand = rng(seed);
  const messages = [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Fix the failing tests in this repository and explain what was wrong.' },
      ],
    },
  ];
  for (let i = 0; i < results; i++) {
    const { call, id, text } = toolPair(i, rand);
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${i}: let me look at ${WORDS[i % WORDS.length]}.` },
        { type: 'tool_use', id, name: call.name, input: call.input },
      ],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] });
  }
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 32000,
    stream: true,
    metadata: { user_id: `user_${'ab'.repeat(32)}_account__session_${session}` },
    system: [
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
      {
        type: 'text',
        text: 'You are an interactive CLI tool that helps users with software engineering tasks.',
        cache_control: { type: 'ephemeral' },
      },
    ],
    tools: [
      {
        name: 'Bash',
        description: 'Run a shell command',
        input_schema: { type: 'object', properties: { command: { type: 'string' } } },
      },
    ],
    messages,
  };
}

/** The body an agent sends at the turn ending with message `end` (inclusive). */
export function turnOf(body, end) {
  return { ...body, messages: body.messages.slice(0, end + 1) };
}
