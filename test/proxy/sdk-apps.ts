/**
 * Applications with a tool loop of their own, written on the real SDKs (`openai`, `@anthropic-ai/sdk`)
 * the way their docs show: ask, run each tool the model calls, send the results back, until the
 * model answers in text. Their tools are `read_log` (a long log, which the proxy compacts to a
 * marker) and `read_more`; a call of any other tool gets an error result, as an app's loop gives
 * it. No shell, no MCP: markers are a dead end to them unless the proxy opens them. Each keeps its
 * conversation across ask() calls (later turns), and the bytes of every response it received.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { NEEDLE } from './scripted-model.js';

/** 600 lines of noise and, at line 418, the one line the question is about. */
export const LOG = Array.from({ length: 600 }, (_, i) =>
  i === 417
    ? `2024-05-01T10:57:00Z INFO ${NEEDLE}`
    : `2024-05-01T10:${String(i % 60).padStart(2, '0')}:00Z INFO worker-${i % 7} processed batch ${i} in ${(i * 37) % 900} ms`,
).join('\n');

export function runTool(name: string): { text: string; isError: boolean } {
  if (name === 'read_log') return { text: LOG, isError: false };
  if (name === 'read_more') return { text: 'nothing more to read', isError: false };
  return { text: `error: no tool named ${name}`, isError: true };
}

/** A fetch that keeps the bytes of every response body its SDK is handed. */
function tapped(received: Buffer[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const bytes = Buffer.from(await res.arrayBuffer());
    received.push(bytes);
    return new Response(bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

const PARAMS = { type: 'object' as const, properties: {} };

export interface App {
  received: Buffer[];
  ask(question: string): Promise<string>;
}

export class ChatApp implements App {
  readonly received: Buffer[] = [];
  readonly client: OpenAI;
  readonly messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You answer questions about the service log.' },
  ];
  readonly tools: OpenAI.Chat.ChatCompletionTool[] = ['read_log', 'read_more'].map((name) => ({
    type: 'function',
    function: { name, description: `${name} of the service`, parameters: PARAMS },
  }));

  constructor(
    url: string,
    readonly stream: boolean,
  ) {
    this.client = new OpenAI({
      baseURL: `${url}/v1`,
      apiKey: 'sk-test',
      maxRetries: 0,
      fetch: tapped(this.received),
    });
  }

  async ask(question: string): Promise<string> {
    this.messages.push({ role: 'user', content: question });
    for (let i = 0; i < 8; i++) {
      const body = { model: 'gpt-test', messages: this.messages, tools: this.tools };
      const done = this.stream
        ? await this.client.chat.completions.stream(body).finalChatCompletion()
        : await this.client.chat.completions.create(body);
      const message = done.choices[0]!.message;
      this.messages.push({
        role: 'assistant',
        content: message.content,
        ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
      });
      if (!message.tool_calls?.length) return message.content ?? '';
      for (const call of message.tool_calls) {
        const name = call.type === 'function' ? call.function.name : 'custom';
        this.messages.push({ role: 'tool', tool_call_id: call.id, content: runTool(name).text });
      }
    }
    throw new Error('the tool loop did not end');
  }
}

export class ResponsesApp implements App {
  readonly received: Buffer[] = [];
  readonly client: OpenAI;
  readonly input: OpenAI.Responses.ResponseInputItem[] = [];
  readonly tools: OpenAI.Responses.Tool[] = ['read_log', 'read_more'].map((name) => ({
    type: 'function',
    name,
    description: `${name} of the service`,
    parameters: PARAMS,
    strict: false,
  }));

  /** With `stateful`, each request continues the last response (previous_response_id) with what is new. */
  private last?: string;
  private sent = 0;

  constructor(
    url: string,
    readonly stream: boolean,
    readonly stateful = false,
  ) {
    this.client = new OpenAI({
      baseURL: `${url}/v1`,
      apiKey: 'sk-test',
      maxRetries: 0,
      fetch: tapped(this.received),
    });
  }

  async ask(question: string): Promise<string> {
    this.input.push({ role: 'user', content: question });
    for (let i = 0; i < 8; i++) {
      const body = {
        model: 'gpt-test',
        instructions: 'You answer questions about the service log.',
        input: this.stateful ? this.input.slice(this.sent) : this.input,
        tools: this.tools,
        store: this.stateful,
        ...(this.stateful && this.last ? { previous_response_id: this.last } : {}),
      };
      const r = this.stream
        ? await this.client.responses.stream(body).finalResponse()
        : await this.client.responses.create(body);
      this.input.push(...(r.output as OpenAI.Responses.ResponseInputItem[]));
      this.last = r.id;
      this.sent = this.input.length;
      const calls = r.output.flatMap((o) =>
        o.type === 'function_call' ? [o as OpenAI.Responses.ResponseFunctionToolCall] : [],
      );
      if (calls.length === 0) return r.output_text;
      for (const c of calls)
        this.input.push({ type: 'function_call_output', call_id: c.call_id, output: runTool(c.name).text });
    }
    throw new Error('the tool loop did not end');
  }
}

export class AnthropicApp implements App {
  readonly received: Buffer[] = [];
  readonly client: Anthropic;
  readonly messages: Anthropic.MessageParam[] = [];
  readonly tools: Anthropic.Tool[] = ['read_log', 'read_more'].map((name) => ({
    name,
    description: `${name} of the service`,
    input_schema: PARAMS,
  }));

  constructor(
    url: string,
    readonly stream: boolean,
  ) {
    this.client = new Anthropic({
      baseURL: url,
      apiKey: 'sk-ant-test',
      maxRetries: 0,
      fetch: tapped(this.received),
    });
  }

  async ask(question: string): Promise<string> {
    this.messages.push({ role: 'user', content: question });
    for (let i = 0; i < 8; i++) {
      const body = {
        model: 'claude-test',
        max_tokens: 1024,
        system: 'You answer questions about the service log.',
        messages: this.messages,
        tools: this.tools,
      };
      const m = this.stream
        ? await this.client.messages.stream(body).finalMessage()
        : await this.client.messages.create(body);
      this.messages.push({ role: 'assistant', content: m.content });
      const calls = m.content.filter((b) => b.type === 'tool_use');
      if (calls.length === 0) return m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      this.messages.push({
        role: 'user',
        content: calls.map((c) => {
          const r = runTool(c.name);
          return {
            type: 'tool_result' as const,
            tool_use_id: c.id,
            content: r.text,
            ...(r.isError ? { is_error: true } : {}),
          };
        }),
      });
    }
    throw new Error('the tool loop did not end');
  }
}
