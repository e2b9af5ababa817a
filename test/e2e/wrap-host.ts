/**
 * A fake agent host for `cg wrap` tests: an executable node script, installed under the host's
 * name (claude, codex, gemini) in a bin directory put first on PATH. It logs what it was started with
 * (its arguments, the base URL and the variables cg sets), sends the plan's requests to its base URL
 * the way the real host would find it (ANTHROPIC_BASE_URL for claude, the `-c …base_url=` override
 * for codex, GOOGLE_GEMINI_BASE_URL for gemini), optionally waiting for a gate file before each later one, then exits as the plan says.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Plan {
  log: string;
  /** Request bodies, each POSTed to /v1/messages (claude), /v1/responses (codex) or streamGenerateContent (gemini). */
  requests: unknown[];
  /** Before request i > 0: log {waiting: i}, then wait for the file `${gate}${i}`. */
  gate?: string;
  exit?: number;
  /** Kill itself with this signal at the end instead of exiting. */
  selfSignal?: string;
  /** Log {started} then wait forever (for signal tests). */
  hang?: boolean;
  /** On SIGTERM: log {term} and exit with this code. */
  onTerm?: number;
}

const SCRIPT = `#!/usr/bin/env node
const fs = require('node:fs');
const plan = JSON.parse(fs.readFileSync(process.env.FAKE_PLAN, 'utf8'));
const log = (o) => fs.appendFileSync(plan.log, JSON.stringify(o) + '\\n');
const name = require('node:path').basename(process.argv[1]);
const args = process.argv.slice(2);
const override = args.find((a) => /base_url=/.test(a));
const base = name === 'codex' ? (override ? JSON.parse(override.split('=').slice(1).join('=')).replace(/\\/v1$/, '') : process.env.OPENAI_BASE_URL) : name === 'gemini' ? process.env.GOOGLE_GEMINI_BASE_URL : process.env.ANTHROPIC_BASE_URL;
log({ args, base, toolSearch: process.env.ENABLE_TOOL_SEARCH ?? null, pid: process.pid });
if (plan.onTerm !== undefined) process.on('SIGTERM', () => { log({ term: true }); process.exit(plan.onTerm); });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  for (let i = 0; i < plan.requests.length; i++) {
    if (i > 0 && plan.gate) {
      log({ waiting: i });
      while (!fs.existsSync(plan.gate + i)) await sleep(25);
    }
    const path = name === 'codex' ? '/v1/responses' : name === 'gemini' ? '/v1beta/models/gemini-test:streamGenerateContent?alt=sse' : '/v1/messages';
    const headers = name === 'gemini'
      ? { 'content-type': 'application/json', 'x-goog-api-key': 'AIzaSyD-wraptest0123456789abcdefgh' }
      : name === 'codex'
      ? { 'content-type': 'application/json', authorization: 'Bearer sk-test', originator: 'codex_exec' }
      : { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', 'user-agent': 'claude-cli/2.1.332 (external, cli)' };
    try {
      const res = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(plan.requests[i]) });
      log({ status: res.status, bytes: (await res.text()).length });
    } catch (e) {
      log({ error: String(e.cause?.code ?? e.message) });
    }
  }
  if (plan.hang) { log({ started: true }); setInterval(() => {}, 1000); return; }
  if (plan.selfSignal) process.kill(process.pid, plan.selfSignal);
  else process.exit(plan.exit ?? 0);
})();
`;

/** Installs the fake under each name in `dir`/bin; returns that bin directory. */
export function installFakeHosts(dir: string, names: readonly string[] = ['claude', 'codex']): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const n of names) {
    writeFileSync(join(bin, n), SCRIPT);
    chmodSync(join(bin, n), 0o755);
  }
  return bin;
}

export function writePlan(dir: string, plan: Plan): string {
  const file = join(dir, `plan-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(plan));
  return file;
}

/** The fake's log lines so far. */
export function logLines(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** A minimal Anthropic Messages body whose last message is a tool result holding `output`. */
export function anthropicBody(output: string): unknown {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 64,
    stream: true,
    tools: [{ name: 'Bash', description: 'run a command', input_schema: { type: 'object' } }],
    messages: [
      { role: 'user', content: 'run the tests' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'seq 1 4000' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: output }] },
    ],
  };
}

/** A Gemini generateContent body (as Gemini CLI sends it) whose last part is a shell output `output`. */
export function geminiBody(output: string): unknown {
  return {
    contents: [
      { role: 'user', parts: [{ text: 'run the tests' }] },
      {
        role: 'model',
        parts: [{ functionCall: { id: 'c1', name: 'run_shell_command', args: { command: 'seq 1 4000' } } }],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'c1', name: 'run_shell_command', response: { output } } }],
      },
    ],
    tools: [{ functionDeclarations: [{ name: 'run_shell_command' }] }],
  };
}

/** Pids of the processes whose parent is `ppid` and whose command line contains `word`. */
export function childrenOf(ppid: number, word: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== ppid) continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (cmd.includes(word)) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
