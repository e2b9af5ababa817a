// Types for scripts/docs.mjs, for test/unit/docs.test.ts.
import type { Section } from '../src/config/fields.ts';

// biome-ignore lint/suspicious/noExplicitAny: any section's value type
type AnySection = Section<any>;
export interface Specs {
  components: [string, AnySection][];
  config: AnySection;
}
export interface Row {
  key: string;
  def: string;
  doc: string;
}
export const ROOT: string;
export const TARGETS: { readme: string; man: string };
export function loadSpecs(root?: string): Promise<Specs>;
export function tables(specs: Specs): { components: Row[]; config: Row[] };
export function regenerate(kind: 'readme' | 'man', text: string, specs: Specs, missing?: string[]): string;
export function drift(root?: string, specs?: Specs): Promise<Record<string, { now: string; want: string }>>;
