/**
 * How `cg wrap gemini` points Gemini CLI at a `cg proxy` for one run: GOOGLE_GEMINI_BASE_URL in its
 * environment. Read in the 0.61.0 bundle: @google/genai takes it as the Gemini API's base URL
 * (`getBaseUrl(…, GOOGLE_GEMINI_BASE_URL)`), and the content generator uses it for API-key
 * (`gemini-api-key`) and gateway auth — http is accepted for localhost/127.0.0.1/[::1] only, which
 * is where the proxy listens. Without a selected auth type, the variable makes Gemini CLI pick
 * gateway auth, which sends GEMINI_API_KEY all the same (as `x-goog-api-key`). The variable the user
 * set themselves is the upstream (a gateway of theirs keeps being used); the proxy's default is
 * https://generativelanguage.googleapis.com.
 *
 * Google sign-in (oauth-personal), Vertex AI and Compute ADC talk to other APIs (Code Assist,
 * Vertex) that cg proxy does not serve: with one of them selected — in settings.json
 * `security.auth.selectedType` (user, then workspace), or GOOGLE_GENAI_USE_GCA/_VERTEXAI — the
 * host runs unwrapped and cg says so (`cg init gemini` installs the AfterTool hook instead).
 */
import type { WrapHost } from '../wrap.js';

/** Auth types whose requests never reach the Gemini API's base URL. */
const ELSEWHERE: Readonly<Record<string, string>> = {
  'oauth-personal': 'Google sign-in talks to the Code Assist API',
  'vertex-ai': 'Vertex AI auth talks to the Vertex API',
  'compute-default-credentials': 'Compute ADC talks to the Code Assist API',
};

const ALTERNATIVE = 'cg proxy serves the Gemini API only (`cg init gemini` installs the hook instead)';

/** security.auth.selectedType of a settings.json text, if it has one. */
function selectedType(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const t = (JSON.parse(text) as { security?: { auth?: { selectedType?: unknown } } }).security?.auth
      ?.selectedType;
    return typeof t === 'string' ? t : undefined;
  } catch {
    return undefined;
  }
}

export const GEMINI_WRAP: WrapHost = {
  name: 'gemini',
  bin: 'gemini',
  provider: 'gemini',
  ownBase(env) {
    const v = env.GOOGLE_GEMINI_BASE_URL?.trim();
    return v ? v.replace(/\/+$/, '') : undefined;
  },
  point: (url, _env, args) => ({ env: { GOOGLE_GEMINI_BASE_URL: url }, args: [...args] }),
  printEnv: (url) => [`export GOOGLE_GEMINI_BASE_URL=${url}`],
  unwrappable(env, cwd, read) {
    if (env.GOOGLE_GENAI_USE_GCA === 'true') return `${ELSEWHERE['oauth-personal']}; ${ALTERNATIVE}`;
    if (env.GOOGLE_GENAI_USE_VERTEXAI === 'true') return `${ELSEWHERE['vertex-ai']}; ${ALTERNATIVE}`;
    const home = env.GEMINI_CLI_HOME || env.HOME || '';
    let type: string | undefined;
    for (const file of [`${home}/.gemini/settings.json`, `${cwd}/.gemini/settings.json`])
      type = selectedType(read(file)) ?? type;
    const why = type === undefined ? undefined : ELSEWHERE[type];
    return why === undefined ? undefined : `${why}; ${ALTERNATIVE}`;
  },
};
