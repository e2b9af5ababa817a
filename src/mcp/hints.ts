/**
 * What `cg_compress` runs for each content hint: a preset, or an explicit component list where no
 * preset fits (JSON: lossless compaction and TOON before anything is dropped). `auto` leaves the
 * choice to the engine's default for raw text. Changing a row changes what MCP clients get back.
 */
export const CONTENT_HINTS = ['auto', 'log', 'search', 'diff', 'json', 'code', 'prose'] as const;
export type ContentHint = (typeof CONTENT_HINTS)[number];

export interface StageChoice {
  preset?: string;
  components?: string;
}

const CHOICES: Record<ContentHint, StageChoice> = {
  auto: {},
  log: { preset: 'shell' },
  search: { preset: 'shell' },
  diff: { preset: 'shell' },
  json: { components: 'toon,format,collapse' },
  code: { preset: 'coding' },
  prose: { preset: 'shell' },
};

export function isContentHint(v: unknown): v is ContentHint {
  return typeof v === 'string' && (CONTENT_HINTS as readonly string[]).includes(v);
}

export function stagesForHint(hint: ContentHint): StageChoice {
  return CHOICES[hint];
}
