/**
 * Text for an HTML or SVG page: everything a ledger holds (commands, filter and host names) is
 * somebody's shell input, so every string goes through here before it reaches markup, in element
 * text and in quoted attribute values alike.
 */
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}
