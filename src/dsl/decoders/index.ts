/**
 * The decoders a filter's `decode` field names: each turns a tool's JSON output — an event stream
 * (NDJSON) or one report document — into the text the plain tool prints (failures as the tool
 * would show them: test name, file:line, message; passes counted), before the filter's other
 * stages run. The JSON itself stays behind the marker, as every filtered original does. A line that
 * is not such JSON (a build error printed as text among the events) stays as it is.
 *
 * Decoders are pure functions over the line model (stages.ts): a kept line keeps its src, a written
 * one has src 0. They are the DSL's only stage that reads JSON, and the only place that knows a
 * tool's JSON format.
 */
import type { Doc } from '../stages.js';
import { decodeCargoJson } from './cargo-json.js';
import { decodeEslintJson } from './eslint-json.js';
import { decodeGoTestJson } from './go-test-json.js';
import { decodeJestJson } from './jest-json.js';

export const DECODERS = {
  'go-test-json': decodeGoTestJson,
  'cargo-json': decodeCargoJson,
  'eslint-json': decodeEslintJson,
  'jest-json': decodeJestJson,
} as const satisfies Record<string, (doc: Doc) => Doc>;

export type DecoderName = keyof typeof DECODERS;
export const DECODER_NAMES = Object.keys(DECODERS) as DecoderName[];
