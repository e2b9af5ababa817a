/**
 * The tools `cg mcp` offers, independent of the MCP SDK: their definitions (hand-written JSON
 * Schema, kept short because a client sends every tool's schema with every request) and one
 * handler per tool that takes plain arguments and returns MCP tool-result content.
 *
 *   cg_expand    {key, lines?, grep?}        the original behind a key or marker (or a slice of it)
 *   cg_compress  {content, hint?}            the reduced text, originals stashed; {cmd: "stats"} = cg_stats
 *   cg_stats     {}                          what this session saved
 *
 * A bad argument or a missing key is a tool error (isError) with a one-line reason, never a
 * protocol error: the model can read it and correct itself.
 */
import type { FilterSource } from '../component.js';
import type { CgConfig } from '../config.js';
import { compactText } from '../engine.js';
import type { PipelineEvent } from '../pipeline/run.js';
import { type ExpandRecord, recordCompaction, recordExpands } from '../stats/index.js';
import { parseKeys } from '../store/marker.js';
import { compileGrep, parseLineRange, rangeProblem, sliceOriginal } from '../store/slice.js';
import type { Store } from '../store/store.js';
import { CONTENT_HINTS, isContentHint, stagesForHint } from './hints.js';
import { sessionStats, type Tally } from './stats.js';

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
}

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'cg_expand',
    description: 'Original text behind a <<cg:KEY>> marker; lines or grep for a slice.',
    inputSchema: {
      type: 'object',
      properties: {
        key: { type: 'string', description: 'key or marker' },
        lines: { type: 'string', description: 'A-B, 1-based' },
        grep: { type: 'string', description: 'regex; matches as N:line' },
      },
      required: ['key'],
    },
  },
  {
    name: 'cg_compress',
    description:
      'Shrink a large text; dropped parts stay retrievable with cg_expand. {cmd:"stats"}: savings.',
    inputSchema: {
      type: 'object',
      properties: {
        content: { type: 'string' },
        hint: { type: 'string', enum: [...CONTENT_HINTS] },
        cmd: { type: 'string', enum: ['stats'] },
      },
    },
  },
  {
    name: 'cg_stats',
    description: 'Tokens cg saved in this session.',
    inputSchema: { type: 'object', properties: {} },
  },
];

export interface ToolResult {
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

export interface ToolContext {
  config: CgConfig;
  /** null: lossless components only (the store cannot be written). */
  store: Store | null;
  filters?: FilterSource;
  /** The session the ledger groups this server's work under. */
  session: string;
  tally: Tally;
  env: NodeJS.ProcessEnv;
}

const text = (t: string): ToolResult => ({ content: [{ type: 'text', text: t }] });
const failure = (t: string): ToolResult => ({ content: [{ type: 'text', text: t }], isError: true });

export async function callTool(
  name: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ToolResult> {
  try {
    switch (name) {
      case 'cg_expand':
        return await expandTool(args, ctx);
      case 'cg_compress':
        return args.cmd === 'stats' ? await statsTool(ctx) : await compressTool(args, ctx);
      case 'cg_stats':
        return await statsTool(ctx);
      default:
        return failure(
          `unknown tool ${JSON.stringify(name)} (tools: ${TOOLS.map((t) => t.name).join(', ')})`,
        );
    }
  } catch (err) {
    return failure(err instanceof Error ? err.message : String(err));
  }
}

function optionalString(args: Record<string, unknown>, field: string): string | undefined {
  const v = args[field];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new Error(`${field}: expected a string`);
  return v;
}

async function expandTool(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const raw = optionalString(args, 'key');
  if (raw === undefined) return failure('key: give a key or a <<cg:KEY>> marker');
  const parsed = parseKeys(raw);
  if (!parsed.ok) return failure(`key: ${parsed.reason}`);
  const lines = optionalString(args, 'lines');
  const pattern = optionalString(args, 'grep');
  const range = lines !== undefined ? parseLineRange(lines, 'lines') : undefined;
  const grep = pattern !== undefined ? await compileGrep(pattern, 'grep') : undefined;
  if (!ctx.store) return failure('the store of originals is not available here');
  const parts: string[] = [];
  const missing: string[] = [];
  /** Keys whose original ends before `lines` starts. */
  const beyond: string[] = [];
  const records: ExpandRecord[] = [];
  const base = { session: ctx.session, env: ctx.env };
  let matched = 0;
  for (const key of parsed.keys) {
    const bytes = await ctx.store.get(key);
    if (!bytes) {
      missing.push(key);
      records.push({ key, hit: false, bytes: 0, ...base });
      continue;
    }
    const original = bytes.toString('utf8');
    const outside = range ? rangeProblem(original, range, 'lines') : undefined;
    if (outside) {
      beyond.push(parsed.keys.length > 1 ? `${key}: ${outside}` : outside);
      continue;
    }
    const body = sliceOriginal(original, range, grep);
    if (body !== '') matched++;
    ctx.tally.expands++;
    ctx.tally.bytesReturned += Buffer.byteLength(body);
    records.push({
      key,
      hit: true,
      bytes: Buffer.byteLength(body),
      ...(range || grep ? { output: body } : {}),
      storeDir: ctx.store.dir,
      tokenizer: ctx.config.tokenizer,
      ...base,
    });
    parts.push(parsed.keys.length > 1 ? `=== cg_expand ${key} ===\n${body}` : body);
  }
  await recordExpands(records);
  if (missing.length > 0) {
    return failure(
      `${missing.join(', ')}: not in the store (it expired or was never stored here); run the command again to get its output`,
    );
  }
  if (beyond.length > 0) return failure(beyond.join('; '));
  if (grep && matched === 0) return text(`no line matches ${JSON.stringify(pattern)}`);
  return text(parts.join(parts.length > 1 ? '\n' : ''));
}

async function compressTool(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const content = args.content;
  if (typeof content !== 'string') return failure('content: the text to compress (a string)');
  const hint = args.hint ?? 'auto';
  if (!isContentHint(hint)) return failure(`hint: one of ${CONTENT_HINTS.join(', ')}`);
  const events: PipelineEvent[] = [];
  const result = await compactText(content, {
    ...stagesForHint(hint),
    config: ctx.config,
    format: 'text',
    store: ctx.store,
    ...(ctx.filters ? { filters: ctx.filters } : {}),
    onEvent: (e) => events.push(e),
  });
  ctx.tally.compressed++;
  ctx.tally.bytesIn += Buffer.byteLength(content);
  ctx.tally.bytesOut += Buffer.byteLength(result.output);
  await recordCompaction(events, {
    session: ctx.session,
    format: 'text',
    tokenizer: ctx.config.tokenizer,
    ...(ctx.store ? { storeDir: ctx.store.dir } : {}),
    env: ctx.env,
    via: 'mcp',
  });
  return text(result.output);
}

async function statsTool(ctx: ToolContext): Promise<ToolResult> {
  return text(await sessionStats(ctx.session, ctx.tally, ctx.env));
}
