/**
 * `cg wrap gemini`: cg proxy serves no Gemini API (routes.ts refuses Google credentials), so
 * gemini is run unwrapped, and cg says so.
 */
import type { WrapHost } from '../wrap.js';

const GEMINI_WHY = 'cg proxy serves no Gemini API yet (`cg init gemini` installs its hooks)';

export const GEMINI_WRAP: WrapHost = {
  name: 'gemini',
  bin: 'gemini',
  provider: 'openai',
  ownBase: () => undefined,
  point: () => ({ unsupported: GEMINI_WHY }),
  printEnv: () => ({ unsupported: GEMINI_WHY }),
};
