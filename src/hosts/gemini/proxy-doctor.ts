/**
 * `cg doctor`'s proxy section for Gemini CLI: does GOOGLE_GEMINI_BASE_URL point at the proxy (the
 * only place Gemini CLI takes its API base from; it reads only the environment).
 */
import type { ProxyDoctor } from '../host.js';

export const GEMINI_PROXY_DOCTOR: ProxyDoctor = {
  configuredUrl: () => undefined,
  checks(env, url) {
    const own = env.GOOGLE_GEMINI_BASE_URL?.trim().replace(/\/+$/, '');
    if (own === url.replace(/\/+$/, ''))
      return [{ name: 'gemini', status: 'ok', detail: 'Gemini CLI points at it (GOOGLE_GEMINI_BASE_URL)' }];
    const where = own ? `Gemini CLI points at ${own}, not the proxy` : 'Gemini CLI does not use the proxy';
    return [
      {
        name: 'gemini',
        status: 'warn',
        detail: `${where}: \`cg wrap gemini\`, or export GOOGLE_GEMINI_BASE_URL=${url} (API-key or gateway auth; Google sign-in and Vertex AI go to APIs cg proxy does not serve)`,
      },
    ];
  },
};
