/**
 * Output replacement, the hook door into the pipeline (DESIGN §2): a host that calls its hook after
 * a tool ran hands over the tool's response; cg compacts the texts in it that the model would read
 * and answers with the same response shape holding the shorter texts. The tool ran exactly as the
 * user approved it, so nothing here can change a permission outcome, an exit code or an error flag.
 *
 * Which tools, which fields and which answer envelope is the host's table (src/hosts/*.ts); this
 * module only ties them together. cg's own MCP tools (cg_expand above all: its output is what a
 * marker stood for) are never touched. No answer means "the model reads the tool's own output".
 */

import { isUtf8 } from 'node:buffer';
import { closeSync, constants as fsc, fstatSync, openSync, readSync } from 'node:fs';
import { objectAt, stringAt } from '../../json/payload.js';
import { type FileReader, type HookContext, shapeCovers, type ToolShape } from '../host.js';
import { type CompactForModelOptions, compactForModel } from './compact.js';

/** A persisted output larger than this is left to the host's own preview. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** Tools served by `cg mcp`, under whatever server name the user registered it. */
const CG_MCP_TOOL = /(?:^|__|_)cg_(?:expand|compress|stats)$/;

export interface ToolResult {
  tool: string;
  input: Record<string, unknown>;
  response: unknown;
}

/** The tool, its input and its response in a post-tool payload, or undefined. */
export function readToolResult(payload: Record<string, unknown>): ToolResult | undefined {
  const tool = stringAt(payload, 'tool_name');
  if (tool === undefined || !Object.hasOwn(payload, 'tool_response')) return undefined;
  return { tool, input: objectAt(payload, 'tool_input') ?? {}, response: payload.tool_response };
}

/** A post-tool hook's answer for a host whose tools are `shapes` (see replacementAnswer). */
export async function answerToolResult(
  shapes: readonly ToolShape[],
  payload: Record<string, unknown>,
  ctx: HookContext,
): Promise<string | undefined> {
  const result = readToolResult(payload);
  if (!result) {
    const lacks = typeof payload.tool_name !== 'string' ? 'tool_name (a string)' : 'tool_response';
    ctx.debug?.(`left alone: the ${String(payload.hook_event_name)} payload has no ${lacks}`);
    return undefined;
  }
  const { cwd, env, host, session, debug, mcpTool, hint } = ctx;
  return replacementAnswer(shapes, result, {
    cwd,
    env,
    host,
    ...(session !== undefined ? { session } : {}),
    ...(debug ? { debug } : {}),
    ...(mcpTool ? { mcpTool } : {}),
    ...(hint !== undefined ? { hint } : {}),
  });
}

/** The hook's answer (one JSON line) replacing the output, or undefined to leave it. Never throws. */
export async function replacementAnswer(
  shapes: readonly ToolShape[],
  result: ToolResult,
  o: CompactForModelOptions & { files?: FileReader; mcpTool?: string },
): Promise<string | undefined> {
  if (CG_MCP_TOOL.test(result.tool)) {
    o.debug?.(`left alone: ${result.tool} is cg's own tool`);
    return undefined;
  }
  const shape = shapes.find((s) => shapeCovers(s, result.tool));
  if (!shape) {
    o.debug?.(`left alone: cg does not replace ${result.tool} output`);
    return undefined;
  }
  try {
    const found = shape.read(result.response, result.input, o.files ?? readTextFile, o.env);
    if (!found) {
      o.debug?.(`left alone: no text in this ${result.tool} response`);
      return undefined;
    }
    const compacted = await compactForModel(found.texts, o);
    if (compacted.texts.every((c) => c === undefined)) return undefined;
    const texts = compacted.texts.map((c, i) => c ?? found.texts[i]!.text);
    const chars = texts.reduce((n, t) => n + t.length, 0);
    if (found.maxChars !== undefined && chars > found.maxChars) {
      o.debug?.(`left alone: ${chars} characters, still over the ${found.maxChars} the host shows inline`);
      return undefined;
    }
    const updated = found.rebuild(texts);
    const answer = await shape.answer(updated, {
      stash: compacted.stash,
      ...(o.mcpTool !== undefined ? { mcpTool: o.mcpTool } : {}),
    });
    return answer === undefined ? undefined : `${JSON.stringify(answer)}\n`;
  } catch (err) {
    o.debug?.(`left alone: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** A regular file's UTF-8 text (links not followed, size bounded), or undefined. */
export function readTextFile(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_FILE_BYTES) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let used = 0;
    while (used < st.size) {
      const n = readSync(fd, buf, used, st.size - used, used);
      if (n === 0) break;
      used += n;
    }
    const bytes = buf.subarray(0, used);
    return isUtf8(bytes) && !bytes.includes(0) ? bytes.toString('utf8') : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
