/**
 * The rows of the agent integrations: the hooks, their installer and doctor, the proxy and wrap,
 * the MCP server and shell completions. Host names as values come from hosts/names.ts (the light
 * list); each action imports its command's module when it runs.
 */
import { SHELLS } from '../commands/completion.js';
import type { InitFlags } from '../commands/init.js';
import type { WrapFlags } from '../commands/wrap.js';
import { HOST_NAMES, type HostName, hostNamesSentence, WRAP_ONLY_HOST_NAMES } from '../hosts/names.js';
import { PRESET_NAMES } from '../presets.js';
import { type CommandRow, flagsAction } from './command-row.js';

/** `cg init`'s target besides the hosts: instructions for an AGENTS.md. */
const AGENTS_MD = 'agents-md';

const HOOK_EXAMPLES = `
Examples:
  cg init claude                            install it (cg hook claude) in ~/.claude/settings.json
  cg doctor                                 check every installed integration
  seq 3000 | jq -Rs '{hook_event_name:"PostToolUse",tool_name:"Bash",tool_input:{command:"seq 3000"},
    tool_response:{stdout:.,stderr:"",interrupted:false,isImage:false}}' | cg hook claude

Claude Code (PostToolUse) and Gemini CLI (AfterTool): the tool runs as approved, then the hook hands
back a shorter output. Codex (PreToolUse): only commands no Codex rule names are wrapped in cg run.
Prints nothing (the call goes on unchanged) for small outputs, tools or commands cg leaves alone,
with CG_DISABLE=1, and on any problem of its own. CG_HOOK_DEBUG=1 says on stderr what it decided.
`;

const INIT_EXAMPLES = `
Examples:
  cg init claude --dry-run                  show the change to ~/.claude/settings.json
  cg init claude --project                  ./.claude/settings.json instead
  cg init codex                             ~/.codex/hooks.json
  cg init gemini                            ~/.gemini/settings.json (the hook and cg's MCP server)
  cg init claude --uninstall                take the hook out again
  cg init agents-md >> AGENTS.md            tell the agent about <<cg:KEY>> markers
`;

const PROXY_EXAMPLES = `
Examples:
  cg proxy                                  listen on 127.0.0.1:8787; prints the lines for Claude Code and Codex
  cg proxy --observe                        change nothing, record what would have been saved
  ANTHROPIC_BASE_URL=http://127.0.0.1:8787 claude

Routes: POST /v1/messages, /v1/chat/completions and /v1/responses are compacted (preset agent);
everything else passes through unchanged. Upstreams come from flags or the proxy: section of your
own config, never from the request. GET /_cg/health answers for cg doctor.
`;

const WRAP_EXAMPLES = `
Examples:
  cg wrap claude                            Claude Code through a cg proxy of its own, for this run
  cg wrap claude -p "fix the failing test"  the host's arguments follow the host's name
  cg wrap codex exec "run the tests"        Codex, with -c overrides for its model provider
  cg wrap gemini                            Gemini CLI (API key), with GOOGLE_GEMINI_BASE_URL
  cg wrap opencode run "run the tests"      OpenCode, its anthropic provider via OPENCODE_CONFIG_CONTENT
  eval "$(cg wrap --print-env claude)"      point this shell at the proxy of your config

A cg proxy already answering where the host or your config points is used as it is; else one is
started on a free loopback port and stopped after. It forwards where the host would have gone
(ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL, else your config's proxy: upstreams). If it cannot start, the
host runs unwrapped; if it dies, it is restarted on the same port. The exit code is the host's.
`;

const COMPLETION_EXAMPLES = `
Examples:
  source <(cg completion bash)              bash, this shell
  cg completion zsh > ~/.zfunc/_cg          zsh, with ~/.zfunc on $fpath
  cg completion fish > ~/.config/fish/completions/cg.fish
`;

/** Text for the commands that write to stdout once done, handed to them as `out`. */
function collected(): { text: () => string; out: (s: string) => void } {
  let text = '';
  return {
    text: () => text,
    out: (s) => {
      text += s;
    },
  };
}

const CONFIG_OWN = {
  flags: '--config <file>',
  description: 'config file (its proxy: section counts only if it is your own)',
};

export const AGENT_COMMANDS: readonly CommandRow[] = [
  {
    name: 'hook',
    description:
      "an agent host's hook: reads the hook JSON on stdin; replaces tool output (claude, gemini, opencode) or wraps shell commands in cg run (codex)",
    arguments: [
      {
        spec: '<host>',
        description: hostNamesSentence(),
        checked: { label: 'hook', noun: 'host', values: HOST_NAMES },
      },
    ],
    options: [
      {
        flags: '--mcp-tool <name>',
        description: "the host's name for cg's MCP cg_expand tool: marker hints name it",
      },
    ],
    help: HOOK_EXAMPLES,
    async action({ args: [host], flags }) {
      const { hookSubcommand } = await import('../commands/hook.js');
      const mcpTool = flags.mcpTool as string | undefined;
      return hookSubcommand(host as HostName, mcpTool ? { mcpTool } : {});
    },
  },
  {
    name: 'init',
    description: `add cg's hook to an agent host's settings (${HOST_NAMES.join(', ')}), or print agent instructions (${AGENTS_MD})`,
    arguments: [
      {
        spec: '<target>',
        description: hostNamesSentence([AGENTS_MD]),
        checked: { label: 'init', noun: 'target', values: [...HOST_NAMES, AGENTS_MD] },
      },
    ],
    options: [
      {
        flags: '--global',
        description: 'user-wide settings (~/.claude, ~/.codex, ~/.gemini, ~/.config/opencode; the default)',
      },
      {
        flags: '--project',
        description: "this project's settings (./.claude, ./.codex, ./.gemini, ./.opencode)",
      },
      { flags: '--dry-run', description: 'print the change as a diff; write nothing' },
      { flags: '--uninstall', description: "remove cg's hook, leaving everything else as it was" },
      {
        flags: '--proxy [url]',
        description: 'point the agent at cg proxy instead (default http://127.0.0.1:8787)',
      },
    ],
    help: INIT_EXAMPLES,
    async action({ args: [target], flags }) {
      const [{ initCommand }, { writeOut }] = await Promise.all([
        import('../commands/init.js'),
        import('../io.js'),
      ]);
      const out = collected();
      const code = await initCommand(target as string, flags as InitFlags, {
        env: process.env,
        cwd: process.cwd(),
        out: out.out,
        err: (s) => process.stderr.write(s),
      });
      await writeOut(out.text());
      return code;
    },
  },
  {
    name: 'doctor',
    description:
      'check every installed agent integration: installed, trusted, host version, and the hook answering as the host expects',
    options: [
      { flags: '--json', description: 'machine-readable report (keys are only ever added, never renamed)' },
    ],
    async action({ flags }) {
      const [{ doctorCommand }, { writeOut }] = await Promise.all([
        import('../commands/doctor.js'),
        import('../io.js'),
      ]);
      const out = collected();
      const code = await doctorCommand({
        json: !!flags.json,
        env: process.env,
        cwd: process.cwd(),
        out: out.out,
      });
      await writeOut(out.text());
      return code;
    },
  },
  {
    name: 'proxy',
    description: 'a local HTTP proxy that compacts agent request bodies on their way to the provider',
    options: [
      { flags: '--port <n>', description: 'port to listen on (default 8787; 0 picks a free one)' },
      { flags: '--host <addr>', description: 'address to listen on (default 127.0.0.1)' },
      {
        flags: '--allow-remote',
        description: 'allow a --host that is not a loopback address (prints a warning)',
      },
      {
        flags: '--observe',
        description: 'forward every body unchanged; record what would have been saved (cg stats --observed)',
      },
      {
        flags: '-p, --preset <name>',
        description: 'component preset for request bodies (default agent)',
        offered: PRESET_NAMES,
      },
      {
        flags: '--anthropic-upstream <url>',
        description: 'where Anthropic requests go (default https://api.anthropic.com)',
      },
      {
        flags: '--openai-upstream <url>',
        description: 'where OpenAI requests go (default https://api.openai.com)',
      },
      {
        flags: '--gemini-upstream <url>',
        description: 'where Gemini API requests go (default https://generativelanguage.googleapis.com)',
      },
      {
        flags: '--timeout-ms <n>',
        description: 'a compaction taking longer forwards the original body (default 20000)',
      },
      {
        flags: '--retrieval <mode>',
        description: 'answer cg_expand for clients with no shell: auto, always or never (default auto)',
      },
      CONFIG_OWN,
      { flags: '--no-store', description: 'do not stash originals: lossless components only' },
      {
        flags: '-v, --verbose',
        description: 'one line per request on stderr (auth headers redacted, never bodies)',
      },
    ],
    help: PROXY_EXAMPLES,
    action: flagsAction(async () => (await import('../commands/proxy.js')).proxyCommand),
  },
  {
    name: 'wrap',
    description:
      'run an agent (claude, codex, gemini, opencode) through cg proxy for this run: no settings file changed',
    arguments: [
      { spec: '<host>', description: hostNamesSentence(WRAP_ONLY_HOST_NAMES) },
      { spec: '[args...]', description: "the host's own arguments" },
    ],
    options: [
      {
        flags: '--print-env',
        description: 'print the shell lines that point the host at the configured proxy, and exit',
      },
      CONFIG_OWN,
    ],
    passThroughOptions: true,
    help: WRAP_EXAMPLES,
    async action({ args: [host, args], flags }) {
      const { wrapCommand } = await import('../commands/wrap.js');
      return wrapCommand(host as string, args as string[], flags as WrapFlags);
    },
  },
  {
    name: 'mcp',
    description: 'serve cg_expand, cg_compress and cg_stats to an MCP client over stdio',
    options: [{ flags: '--config <file>', description: 'config file (store settings, store.hint)' }],
    action: flagsAction(async () => (await import('../commands/mcp.js')).mcpCommand),
  },
  {
    name: 'completion',
    description: 'print a shell completion script: bash, zsh or fish',
    arguments: [
      {
        spec: '<shell>',
        description: 'bash, zsh or fish',
        checked: { label: 'completion', noun: 'shell', values: SHELLS },
      },
    ],
    help: COMPLETION_EXAMPLES,
    async action({ args: [shell], program }) {
      const [{ completionScript }, { writeOut }] = await Promise.all([
        import('../commands/completion.js'),
        import('../io.js'),
      ]);
      await writeOut(completionScript(shell as string, program));
      return 0;
    },
  },
];
