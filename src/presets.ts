/**
 * Presets as data: named, ordered component lists (a test checks every name is a component).
 */
export const PRESETS = {
  off: [],
  safe: ['format', 'cacheinject'],
  balanced: ['format', 'dedup', 'failed_run', 'cmdfilter', 'cacheinject'],
  aggressive: ['format', 'dedup', 'failed_run', 'cmdfilter', 'cacheinject', 'smartcrush', 'extract'],
  coding: ['format', 'skeleton', 'cmdfilter', 'cacheinject'],
  mcp: ['format', 'smartcrush', 'cacheinject'],
  agent: ['format', 'dedup', 'failed_run', 'mask', 'extract', 'cacheinject'],
  summarize: ['summarize'],
  shell: ['format', 'cmdfilter', 'smartcrush', 'fold', 'collapse'],
} as const satisfies Record<string, readonly string[]>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

/** The preset used when neither flags nor config choose one. */
export const DEFAULT_PRESET_FOR_TEXT: PresetName = 'shell';
export const DEFAULT_PRESET_FOR_TRANSCRIPT: PresetName = 'balanced';

export function isPreset(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}
