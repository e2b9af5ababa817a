/**
 * cacheinject — lossless, transcript, Anthropic only: puts `cache_control: {type: "ephemeral"}` on
 * the last content block of the message just before the newest turn (the last user message), so
 * the provider caches the conversation up to there and the next request reads it back cheaply.
 * It changes no tool output text: it asks the pipeline for a structural edit, which the writer
 * inserts after the block's last member, every other byte unchanged.
 *
 * Inert when the body is not Anthropic-shaped, when that message's content is a plain string (a
 * block list would be a different request), when its last block cannot carry a breakpoint (thinking
 * blocks, empty text), when a message already carries one (the client manages its cache), or when
 * the body already has the API's maximum of four (the pipeline checks that).
 */
import type { StructuralEdit, TranscriptComponent } from '../component.js';
import { type ConfigOf, section } from '../config/fields.js';

/** It takes no settings: an empty section, so any key is refused. */
/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({});
export type CacheinjectConfig = ConfigOf<typeof CONFIG>;

/** Blocks the API refuses a cache_control on. */
const NO_BREAKPOINT = new Set(['thinking', 'redacted_thinking']);

export const cacheinject: TranscriptComponent<CacheinjectConfig> = {
  name: 'cacheinject',
  lossy: false,
  scope: 'transcript',
  summary: 'Anthropic: add a prompt-cache breakpoint before the newest turn (no text changes)',
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,

  run() {
    return new Map();
  },

  editsFromMessages: true,

  edits(_outputs, _cfg, ctx): StructuralEdit[] {
    if (ctx.format !== 'anthropic') return [];
    const msgs = ctx.messages;
    if (msgs.some((m) => m.lastBlock?.cacheControl)) return [];
    let newest = msgs.length - 1;
    while (newest >= 0 && msgs[newest]!.role !== 'user') newest--;
    const target = newest - 1;
    const block = target >= 0 ? msgs[target]!.lastBlock : undefined;
    if (!block || block.empty || NO_BREAKPOINT.has(block.type)) return [];
    return [{ kind: 'cache_breakpoint', messageIndex: target }];
  },
};
