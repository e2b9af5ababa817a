/**
 * What a line's template is (template.ts for plain lines, json-template.ts for a JSON object):
 * the line with each masked value written as one slot `<*>`, and the values in order.
 */

export interface LineTemplate {
  /** The line with every slot written `<*>`: equal keys mean the same template. */
  key: string;
  /** The masked text of each slot, in order (quotes excluded). */
  values: string[];
}

export const SLOT = '<*>';
