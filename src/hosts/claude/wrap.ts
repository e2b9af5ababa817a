/**
 * `cg wrap claude`: Claude Code reads ANTHROPIC_BASE_URL from the environment, but the `env` map of
 * any settings layer is assigned over process.env at start-up (seen in the 2.1.332 binary), so a
 * base URL in the user's settings.json would win; `--settings '{"env":{…}}'` (flagSettings, applied
 * after the user, project and local layers) makes this run's URL win. ENABLE_TOOL_SEARCH=true
 * unless set: Claude Code turns tool search off for a non-default host.
 */
import { nonEmpty, settingsEnv, type WrapHost } from '../wrap.js';

/** A user's --settings is theirs: cg does not add a second one (the environment still points). */
const hasSettingsFlag = (args: readonly string[]) =>
  args.some((a) => a === '--settings' || a.startsWith('--settings='));

export const CLAUDE_WRAP: WrapHost = {
  name: 'claude',
  bin: 'claude',
  provider: 'anthropic',
  ownBase(env, cwd, read) {
    // The settings layers' env maps win over the environment, the nearest layer last.
    const home = env.CLAUDE_CONFIG_DIR || `${env.HOME ?? ''}/.claude`;
    let base = nonEmpty(env.ANTHROPIC_BASE_URL);
    for (const file of [
      `${home}/settings.json`,
      `${cwd}/.claude/settings.json`,
      `${cwd}/.claude/settings.local.json`,
    ]) {
      const v = settingsEnv(read(file)).ANTHROPIC_BASE_URL;
      if (typeof v === 'string' && v.trim() !== '') base = v.trim();
    }
    return base?.replace(/\/+$/, '');
  },
  point(url, env, args) {
    const add: Record<string, string> = { ANTHROPIC_BASE_URL: url };
    if (env.ENABLE_TOOL_SEARCH === undefined) add.ENABLE_TOOL_SEARCH = 'true';
    const settings = JSON.stringify({ env: { ANTHROPIC_BASE_URL: url } });
    return { env: add, args: hasSettingsFlag(args) ? [...args] : ['--settings', settings, ...args] };
  },
  printEnv: (url) => [`export ANTHROPIC_BASE_URL=${url}`, 'export ENABLE_TOOL_SEARCH=true'],
};
