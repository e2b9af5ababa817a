/**
 * The cg_expand tool the proxy adds to a request, in each provider's own shape: the same contract
 * as `cg mcp`'s (src/mcp/tools.ts: key, optional line range, grep), written as fixed JSON text so
 * every turn of a session carries exactly the same bytes (its cached prefix stays warm).
 *
 *   anthropic   {"name":"cg_expand","description":…,"input_schema":{…}}
 *   openai      {"type":"function","function":{"name":"cg_expand","description":…,"parameters":{…}}}
 *   responses   {"type":"function","name":"cg_expand","description":…,"parameters":{…},"strict":false}
 *
 * Responses makes a function strict unless told otherwise, and a strict schema may have no
 * optional property: `strict: false` keeps lines and grep optional.
 */
import { TOOLS } from '../../mcp/tools.js';
import { type BodyMap, type ByteEdit, emptyArrayAt, type Format } from './body-map.js';

/** The name the proxy's tool goes by, and the only calls it answers. */
export const EXPAND_TOOL = 'cg_expand';

const mcp = TOOLS.find((t) => t.name === EXPAND_TOOL)!;

/** Said to the model once per request: what a marker is and that this tool opens it. */
const DESCRIPTION =
  'Original text behind a <<cg:KEY>> marker (the hint after it may say "cg expand KEY"); lines or grep for a slice.';

const DEFINITIONS: Record<Format, string> = {
  anthropic: JSON.stringify({ name: EXPAND_TOOL, description: DESCRIPTION, input_schema: mcp.inputSchema }),
  openai: JSON.stringify({
    type: 'function',
    function: { name: EXPAND_TOOL, description: DESCRIPTION, parameters: mcp.inputSchema },
  }),
  responses: JSON.stringify({
    type: 'function',
    name: EXPAND_TOOL,
    description: DESCRIPTION,
    parameters: mcp.inputSchema,
    strict: false,
  }),
};

/** The tool definition as the format writes it, as JSON text. */
export function toolDefinition(format: Format): string {
  return DEFINITIONS[format];
}

/**
 * The edit that adds the tool to a body: last in its `tools` array, or a `tools` member of its
 * own right after the body's opening brace. Undefined when `tools` is something else.
 */
export function toolEdit(map: BodyMap, format: Format): ByteEdit | undefined {
  const def = toolDefinition(format);
  const { bytes } = map;
  const tools = map.members.get('tools');
  if (!tools) {
    const alone = map.members.size === 0;
    return { start: map.open + 1, end: map.open + 1, text: `"tools":[${def}]${alone ? '' : ','}` };
  }
  if (bytes.subarray(tools.start, tools.end).toString('latin1') === 'null')
    return { ...tools, text: `[${def}]` };
  if (bytes[tools.start] !== 0x5b) return undefined;
  const close = tools.end - 1;
  return { start: close, end: close, text: emptyArrayAt(bytes, tools.start) ? def : `,${def}` };
}
