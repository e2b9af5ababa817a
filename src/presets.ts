/**
 * Presets as data: named, ordered component lists. A preset may name a component that has not
 * landed yet (PLANNED_COMPONENTS); the resolver skips it with a --verbose note instead of failing,
 * while a name the user types that no component has is an error.
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
  shell: ['format', 'cmdfilter', 'smartcrush', 'collapse'],
} as const satisfies Record<string, readonly string[]>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

/** The preset used when neither flags nor config choose one. */
export const DEFAULT_PRESET_FOR_TEXT: PresetName = 'shell';
export const DEFAULT_PRESET_FOR_TRANSCRIPT: PresetName = 'balanced';

/** Components that presets name but that are not implemented in this build yet. */
export const PLANNED_COMPONENTS: readonly string[] = ['summarize'];

export function isPreset(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}
