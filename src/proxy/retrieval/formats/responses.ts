/**
 * OpenAI Responses answers. A call is an output item (`function_call` with its `call_id`, or
 * another client-run call: custom_tool_call, local_shell_call, computer_call…); a completed
 * response with calls waits for their outputs. A stream announces each item with
 * output_item.added (its type and name) and ends with response.completed (or .incomplete,
 * .failed, error) carrying the whole response. The answer goes back as its output items; results
 * as `function_call_output` items. Taking the proxy's items out renumbers `output_index` and
 * `sequence_number` and drops them from the final response. For an answer that also called the
 * client's tools, the proxy's call and result go right after the client's copy of its own call —
 * or, for a request that continues a stored response, first in `input`.
 */

import { objectAt, stringAt } from '../../../json/payload.js';
import { eventJson, type SseEvent, sseEvent } from '../sse.js';
import { EXPAND_TOOL } from '../tool.js';
import { type Call, type FormatOps, type Reply, StreamCalls, type StreamReader } from './types.js';

type Item = Record<string, unknown>;

/** Items the client runs (server-side tools — web search, file search, MCP — are the API's). */
const CLIENT_CALLS = new Set([
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'shell_call',
  'computer_call',
  'apply_patch_call',
]);

const isOwn = (item: Item | undefined) => item?.type === 'function_call' && item.name === EXPAND_TOOL;
const ENDS = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

function callOf(item: Item): Call | undefined {
  if (!CLIENT_CALLS.has(String(item.type))) return undefined;
  const args =
    typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.input ?? item.action ?? {});
  return {
    id: stringAt(item, 'call_id') ?? '',
    name: typeof item.name === 'string' ? item.name : String(item.type),
    args,
    own: isOwn(item),
  };
}

function replyOf(output: readonly Item[], status: unknown, id: unknown): Reply {
  const calls = output.flatMap((i) => callOf(i) ?? []);
  return {
    calls,
    awaitsResults: status === 'completed' && calls.length > 0,
    assistant: output.map((i) => JSON.stringify(i)),
    ...(typeof id === 'string' ? { id } : {}),
  };
}

class ResponsesStream extends StreamCalls implements StreamReader {
  private readonly items: Item[] = [];
  private final?: Item;
  /** The response's id, from its first event. */
  private id?: unknown;
  private dropped = 0;

  push(e: SseEvent): void {
    const d = eventJson(e);
    if (!d) return;
    const type = String(d.type ?? e.event);
    const index = typeof d.output_index === 'number' ? d.output_index : -1;
    const item = objectAt(d, 'item');
    if (type === 'response.created') this.id = objectAt(d, 'response')?.id;
    if (type === 'response.output_item.added' && item && index >= 0) {
      this.items[index] = item;
      if (isOwn(item)) this.sawCall(index, true);
      else if (CLIENT_CALLS.has(String(item.type))) this.sawCall(index, false);
    } else if (type === 'response.output_item.done' && item && index >= 0) this.items[index] = item;
    if (ENDS.has(type)) {
      this.done = true;
      this.final = objectAt(d, 'response');
    }
  }

  reply(): Reply {
    const output = Array.isArray(this.final?.output)
      ? (this.final.output as Item[])
      : this.items.filter((i) => i !== undefined);
    return replyOf(output, this.final?.status, this.final?.id ?? this.id);
  }

  outgoing(e: SseEvent): SseEvent | undefined {
    if (this.own.size === 0) return e;
    const d = eventJson(e);
    if (!d) return e;
    if (typeof d.output_index === 'number' && this.own.has(d.output_index)) {
      this.dropped++;
      return undefined;
    }
    const out: Record<string, unknown> = { ...d };
    let changed = false;
    if (typeof d.output_index === 'number') {
      const below = this.ownBefore(d.output_index);
      out.output_index = d.output_index - below;
      changed ||= below > 0;
    }
    if (typeof d.sequence_number === 'number' && this.dropped > 0) {
      out.sequence_number = d.sequence_number - this.dropped;
      changed = true;
    }
    const response = objectAt(d, 'response');
    if (response && Array.isArray(response.output) && response.output.some((i) => isOwn(objectAt(i)))) {
      out.response = { ...response, output: (response.output as Item[]).filter((i) => !isOwn(i)) };
      changed = true;
    }
    return changed ? sseEvent(out, e.event) : e;
  }
}

export const responsesOps: FormatOps = {
  readJson(body) {
    if (!Array.isArray(body.output)) return undefined;
    return replyOf(body.output as Item[], body.status, body.id);
  },
  stripJson: (body) => ({ ...body, output: (body.output as Item[]).filter((i) => !isOwn(i)) }),
  stream: () => new ResponsesStream(),
  results: (answered) =>
    answered.map(({ call, answer }) =>
      JSON.stringify({ type: 'function_call_output', call_id: call.id, output: answer.text }),
    ),
  mixed(reply, answered, at, stateful) {
    const holds = reply.calls.filter((c) => !c.own).map((c) => c.id);
    const results = responsesOps.results(answered);
    if (stateful) return [{ op: 'input-start', holds, items: results }];
    const own = reply.assistant.filter((text) => isOwn(objectAt(JSON.parse(text))));
    return [{ op: 'after-call', at, holds, items: [...own, ...results] }];
  },
};
