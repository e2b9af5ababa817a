/**
 * The Gemini API's place in the route table (routes.ts): its paths, which of them carry a body cg
 * compacts, and the provider a Google credential belongs to. Gemini CLI 0.61.0 (API key or gateway
 * auth, through @google/genai) was seen to call `POST /v1beta/models/{model}:generateContent`
 * (its model router), `:streamGenerateContent?alt=sse` (the conversation) and `:countTokens`; the
 * API also serves files, cached contents and uploads under the same version prefixes, and
 * `GOOGLE_GENAI_API_VERSION` can make the client use v1 or v1alpha. Pure data and two lookups.
 */
import type { Issuer } from './credentials.js';
import type { Provider } from './routes.js';

/** Path prefixes only the Gemini API serves, and /v1/models, which it shares with the others. */
export const GEMINI_ROUTES: readonly string[] = [
  '/v1beta',
  '/v1alpha',
  '/upload/v1beta',
  '/download/v1beta',
  '/v1/models',
  '/v1/cachedContents',
];

/** A model's content generation, whose body is a Gemini request (the model name has no slash). */
const GENERATE = /^\/(?:v1|v1beta|v1alpha)\/models\/[^/:]+:(?:generateContent|streamGenerateContent)$/;

/** The body format to compact for a POST to the Gemini API at `pathname`, if any. */
export function geminiCompacted(pathname: string): 'gemini' | undefined {
  return GENERATE.test(pathname) ? 'gemini' : undefined;
}

/** The provider a credential's issuer or a protocol's owner is served by: Google's is the Gemini API. */
export function providerOf(issuer: Issuer): Provider {
  return issuer === 'google' ? 'gemini' : issuer;
}
