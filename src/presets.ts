/**
 * Presets as data: named, ordered component lists (a test checks every name is a component).
 * `toon` comes before `format` wherever JSON may pass: it rewrites only a payload it provably
 * shrinks (a uniform table, fewer tokens than the compact JSON would have, decoding back to the
 * same data), so it costs nothing elsewhere, and format then compacts what toon left as JSON. In
 * that order a large table never has its pretty JSON, a compact copy and its TOON alive at once
 * (issue 13: a 64 MB array peaked at 1.26× the memory budget with format first). Where smartcrush
 * runs without a text fallback after it (mcp, aggressive), toon comes after smartcrush: a table
 * smartcrush cut is smaller than the whole table as TOON, and smartcrush cannot read TOON; in
 * shell, toon first measured smaller (fold then folds its rows). For raw text, `fold` is the
 * fallback for what no filter claimed and `collapse` catches what fold leaves alone (inputs over
 * its max_bytes).
 *
 * In shell, `skeleton` outlines a source file printed by a command (`cat x.java`, `sed -n 1,400p
 * x.rs` — how Codex reads files) only where fold would otherwise fold it: a file of 2,000 tokens
 * or more (PRESET_SETTINGS: min_file_tokens), so a file read to be edited stays verbatim as before
 * and a long one becomes its outline instead of `[×36]   }` templates.
 *
 * `agent` is what `cg proxy` runs on request bodies: the declarative filters (cmdfilter) and the
 * outline of a long file read (skeleton, 2,000 tokens or more) for the outputs of the newest turn
 * only (newest_only): older outputs were decided when they were new and are replayed as sent, and a
 * conversation first seen mid-way keeps their bytes, so the provider's cache keeps matching. They
 * run after dedup and failed_run, which compare outputs as they came; a large failing run goes
 * only through a filter proven to keep every failure line (the gates).
 */
export const PRESETS = {
  off: [],
  safe: ['toon', 'format', 'cacheinject'],
  balanced: ['toon', 'format', 'dedup', 'failed_run', 'cmdfilter', 'cacheinject'],
  aggressive: ['format', 'dedup', 'failed_run', 'cmdfilter', 'cacheinject', 'smartcrush', 'toon', 'extract'],
  coding: ['toon', 'format', 'skeleton', 'cmdfilter', 'cacheinject'],
  mcp: ['format', 'smartcrush', 'toon', 'cacheinject'],
  agent: ['toon', 'format', 'skeleton', 'cmdfilter', 'dedup', 'failed_run', 'mask', 'extract', 'cacheinject'],
  summarize: ['summarize'],
  shell: ['toon', 'format', 'skeleton', 'cmdfilter', 'smartcrush', 'fold', 'collapse'],
} as const satisfies Record<string, readonly string[]>;

export type PresetName = keyof typeof PRESETS;

/**
 * A preset's own settings for some of its components, over each component's defaults; a config
 * file's section for that component replaces them (it is parsed over the component's defaults).
 */
export const PRESET_SETTINGS: Partial<Record<PresetName, Record<string, Record<string, unknown>>>> = {
  shell: { skeleton: { min_file_tokens: 2000 } },
  agent: { skeleton: { min_file_tokens: 2000, newest_only: true }, cmdfilter: { newest_only: true } },
};
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

/** The preset used when neither flags nor config choose one. */
export const DEFAULT_PRESET_FOR_TEXT: PresetName = 'shell';
export const DEFAULT_PRESET_FOR_TRANSCRIPT: PresetName = 'balanced';

export function isPreset(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}
