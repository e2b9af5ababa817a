/**
 * The stdio MCP server behind `cg mcp`: the SDK's low-level Server (so the tool schemas go out
 * exactly as written in tools.ts, with nothing generated around them), tools/list and tools/call,
 * over stdin/stdout until the client closes stdin. stdout carries only protocol messages. Calls still
 * running when stdin closes are finished and answered before the server exits (in-flight.ts).
 *
 * The SDK (and the zod it brings) is imported here and nowhere else, through a specifier the
 * bundler does not follow: it stays out of dist/cli.cjs and is read from node_modules only when
 * `cg mcp` runs, so no other command pays for loading it.
 */
import { InFlight } from './in-flight.js';
import { callTool, TOOLS, type ToolContext } from './tools.js';

type ServerModule = typeof import('@modelcontextprotocol/sdk/server/index.js');
type StdioModule = typeof import('@modelcontextprotocol/sdk/server/stdio.js');
type TypesModule = typeof import('@modelcontextprotocol/sdk/types.js');

const SDK = '@modelcontextprotocol/sdk';

/** Imports an SDK module by a computed name, which esbuild leaves as a runtime import. */
function sdk<T>(path: string): Promise<T> {
  return import(`${SDK}/${path}`) as Promise<T>;
}

export interface ServeOptions {
  version: string;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

/** Serves until stdin ends; resolves then. */
export async function serveMcp(ctx: ToolContext, opts: ServeOptions): Promise<void> {
  const [{ Server }, { StdioServerTransport }, { ListToolsRequestSchema, CallToolRequestSchema }] =
    await Promise.all([
      sdk<ServerModule>('server/index.js'),
      sdk<StdioModule>('server/stdio.js'),
      sdk<TypesModule>('types.js'),
    ]);
  const stdin = (opts.stdin ?? process.stdin) as NodeJS.ReadStream;
  const stdout = (opts.stdout ?? process.stdout) as NodeJS.WriteStream;
  const server = new Server(
    { name: 'cg', version: opts.version },
    {
      capabilities: { tools: {} },
      instructions: 'Markers <<cg:KEY>> stand for text cg left out; cg_expand gives it back.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS.map((t) => ({ ...t })) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const result = await callTool(
      request.params.name,
      (request.params.arguments ?? {}) as Record<string, unknown>,
      ctx,
    );
    // The SDK's result type is an open object; ToolResult is the part of it cg fills in.
    return { ...result };
  });
  const closed = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  const transport = new StdioServerTransport(stdin, stdout);
  await server.connect(transport);
  const inFlight = new InFlight();
  inFlight.track(transport);
  await closed;
  await inFlight.idle();
  await server.close();
}
