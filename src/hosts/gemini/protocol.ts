/**
 * The few names Gemini CLI's hook protocol fixes, shared by the row (doctor's probe) and the tool
 * shapes: the wrapper the host puts around a tool's text for the model, and the name it gives
 * cg_expand of an MCP server registered as "cg".
 */

export const WRAP_OPEN = '<untrusted_context>\n';
export const WRAP_CLOSE = '\n</untrusted_context>';

/** The MCP tool name Gemini CLI gives cg_expand of a server registered as "cg". */
export const GEMINI_MCP_TOOL = 'mcp_cg_cg_expand';
