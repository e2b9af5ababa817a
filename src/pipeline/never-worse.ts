/**
 * The never-worse bound for a lossy rewrite whose marker key is not known yet: the rewrite's bare
 * text plus a marker tag with any key must be strictly fewer tokens than the input. Deciding with
 * the worst case before the key exists gives the same component input the same decision whatever
 * original it came from, which keeps cg(cg(x)) == cg(x).
 */
import { hint, marker } from '../store/marker.js';
import { BOUNDS_MAX_CHARS, byteLength, fewerByBytes, type Tokens } from '../tokens.js';

export interface TagBound {
  /** The tag with a placeholder key: its bytes bound its tokens whatever the key. */
  sample: string;
  /** The tag with the key removed, and how many times the key appears in it. */
  keyless: string;
  keys: number;
}

const KEY_PLACEHOLDER = '0000000000000000';

export function tagBound(template: string, args: string | undefined): TagBound {
  const sample = marker(KEY_PLACEHOLDER) + hint(template, KEY_PLACEHOLDER, args);
  return {
    sample,
    keyless: marker('') + hint(template, '', args),
    keys: sample.split(KEY_PLACEHOLDER).length - 1,
  };
}

/**
 * Whether bare text plus a marker tag (any key) is strictly fewer tokens than the input. A key is 16
 * hex digits, at most 16 tokens; two slack tokens cover the seams where the tag joins the text. So
 * the rule is: tokens(bare) + tokens(keyless tag) + 16·keys + 2 < tokens(input). The bounds decide
 * it wherever they prove what the counts would say (bytes, then pieces); only the rest is counted.
 */
/**
 * A rewrite without its marker, known by its byte length before it is made: made (text()) only when
 * the bounds cannot decide. Removing the marker slot from an 18 MB rewrite is a copy of 18 MB.
 */
export interface BareText {
  readonly bytes: number;
  text(): string;
}

export async function fewerWithTag(
  tokens: Tokens,
  given: string | BareText,
  tag: TagBound,
  input: string,
): Promise<boolean> {
  const bare = typeof given === 'string' ? { bytes: byteLength(given), text: () => given } : given;
  const upperBytes = bare.bytes + byteLength(tag.sample);
  const byBytes = fewerByBytes(upperBytes, byteLength(input));
  if (byBytes !== undefined) return byBytes;
  // The final text is bare + a tag of exactly sample's bytes, so bytes bound its tokens too.
  if (await tokens.piecesAbove(input, upperBytes)) return true;
  const slack = 16 * tag.keys + 2;
  if (input.length <= BOUNDS_MAX_CHARS) {
    const [b, k, i] = await Promise.all([
      tokens.bounds(bare.text()),
      tokens.bounds(tag.keyless),
      tokens.bounds(input),
    ]);
    if (b.upper + k.upper + slack < i.lower) return true;
    if (b.lower + k.lower + slack >= i.upper) return false;
  }
  const upper = (await tokens.count(bare.text())) + (await tokens.count(tag.keyless)) + slack;
  return upper < (await tokens.count(input));
}
