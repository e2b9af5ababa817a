/**
 * Errors the proxy itself answers with, in the shape each provider's clients parse, so an agent
 * shows "cg proxy: upstream … unreachable" instead of a JSON parse failure. Messages name the
 * upstream's origin and the error code, never a header or a body.
 */
import type { Provider } from './routes.js';

export interface ProxyError {
  status: number;
  body: string;
}

/** Google's canonical status names for the statuses the proxy answers with itself. */
const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
};

/**
 * Anthropic: {type: "error", error: {type, message}}; OpenAI: {error: {message, type, param, code}};
 * Gemini: {error: {code, message, status}}.
 */
export function providerError(provider: Provider, status: number, message: string, code: string): ProxyError {
  if (provider === 'gemini') {
    const error = { code: status, message, status: GOOGLE_STATUS[status] ?? 'UNKNOWN' };
    return { status, body: JSON.stringify({ error }) };
  }
  const type =
    status === 413
      ? 'request_too_large'
      : status === 404
        ? 'not_found_error'
        : status >= 500
          ? 'api_error'
          : 'invalid_request_error';
  const body =
    provider === 'anthropic'
      ? { type: 'error', error: { type, message } }
      : {
          error: {
            message,
            type: status >= 500 ? 'server_error' : 'invalid_request_error',
            param: null,
            code,
          },
        };
  return { status, body: JSON.stringify(body) };
}

/** A short, safe description of why an upstream request failed (an errno-style code when there is one). */
export function failureCode(err: unknown): string {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (e && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return err instanceof Error ? err.name : 'error';
}
