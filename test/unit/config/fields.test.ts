import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  boolean,
  type ConfigOf,
  field,
  integer,
  list,
  number,
  oneOf,
  parsedBy,
  record,
  section,
  string,
} from '../../../src/config/fields.js';
import { editDistance, nearest } from '../../../src/config/nearest.js';
import { ConfigError } from '../../../src/errors.js';

const SAMPLE = section({
  head_lines: integer().or(20),
  ratio: number({ max: 1 }).or(0.5),
  mode: oneOf(['fast', 'slow'] as const).or('fast'),
  ttlDays: integer().key('ttl_days').or(14),
  maxBytes: integer({ min: 1 })
    .key('max_mb')
    .or(2)
    .to((mb) => mb * 2 ** 20),
  name: string().optional(),
  trigger: section({ min_messages: integer({ min: 1 }).or(8), verbose: boolean().or(false) }),
  words: list(string(), 'a list of strings'),
});

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('one section declaration', () => {
  it('gives the defaults, with each default passed through its own conversions', () => {
    expect(SAMPLE.defaults).toEqual({
      head_lines: 20,
      ratio: 0.5,
      mode: 'fast',
      ttlDays: 14,
      maxBytes: 2 * 2 ** 20,
      trigger: { min_messages: 8, verbose: false },
      words: [],
    });
    expect('name' in SAMPLE.defaults).toBe(false);
  });

  it('gives the TypeScript type: optional fields may be absent, every other one is always there', () => {
    expectTypeOf<ConfigOf<typeof SAMPLE>>().toEqualTypeOf<{
      head_lines: number;
      ratio: number;
      mode: 'fast' | 'slow';
      ttlDays: number;
      maxBytes: number;
      trigger: { min_messages: number; verbose: boolean };
      words: string[];
      name?: string;
    }>();
  });

  it('parses the file keys into the properties, filling in what is absent', () => {
    expect(SAMPLE.parse({ ttl_days: 3, max_mb: 5, name: 'x', trigger: { verbose: true } })).toEqual({
      ...SAMPLE.defaults,
      ttlDays: 3,
      maxBytes: 5 * 2 ** 20,
      name: 'x',
      trigger: { min_messages: 8, verbose: true },
    });
  });

  it('reads an absent or null section, and a null list, as empty', () => {
    expect(SAMPLE.parse(undefined)).toEqual(SAMPLE.defaults);
    expect(SAMPLE.parse(null)).toEqual(SAMPLE.defaults);
    expect(SAMPLE.parse({ trigger: null, words: null })).toEqual(SAMPLE.defaults);
  });

  it('hands out fresh defaults, so a caller that changes its copy changes no one else’s', () => {
    const a = SAMPLE.defaults;
    a.words.push('mine');
    a.trigger.min_messages = 1;
    expect(SAMPLE.defaults.words).toEqual([]);
    expect(SAMPLE.parse({}).trigger.min_messages).toBe(8);
  });
});

describe('strict parsing', () => {
  it('refuses an unknown key, naming the nearest known key and listing them all as the file writes them', () => {
    const e = errorOf(() => SAMPLE.parse({ head_line: 3 }));
    expect(e.path).toBe('head_line');
    expect(e.reason).toBe(
      'unknown key (did you mean head_lines?) (known: head_lines, ratio, mode, ttl_days, max_mb, name, trigger, words)',
    );
    expect(errorOf(() => SAMPLE.parse({ ttlDays: 3 })).reason).toMatch(
      /^unknown key \(did you mean ttl_days\?\)/,
    );
    expect(errorOf(() => SAMPLE.parse({ zzzzzz: 1 })).reason).toMatch(/^unknown key \(known: /);
  });

  it('names the dotted path of a bad value inside nested sections and lists', () => {
    expect(errorOf(() => SAMPLE.parse({ trigger: { min_messages: 0 } })).message).toBe(
      'trigger.min_messages: expected an integer ≥ 1, got 0',
    );
    expect(errorOf(() => SAMPLE.parse({ trigger: { verbos: true } })).message).toMatch(
      /^trigger\.verbos: unknown key \(did you mean verbose\?\)/,
    );
    expect(errorOf(() => SAMPLE.parse({ words: ['a', 7] })).message).toBe(
      'words[1]: expected a string, got 7',
    );
    expect(errorOf(() => SAMPLE.parse({ words: 'a' })).message).toBe(
      'words: expected a list of strings, got "a"',
    );
    expect(errorOf(() => SAMPLE.parse({ max_mb: 0 })).message).toBe('max_mb: expected an integer ≥ 1, got 0');
    expect(errorOf(() => SAMPLE.parse({ trigger: 'x' })).message).toBe(
      'trigger: expected a mapping, got "x"',
    );
  });

  it('says what each kind of value expects, echoing only a short excerpt of what it got', () => {
    expect(errorOf(() => integer({ min: 1, max: 9 }).read(2.5, 'n')).reason).toBe(
      'expected an integer in 1..9, got 2.5',
    );
    expect(errorOf(() => number({ max: 1 }).read(2, 's')).reason).toBe('expected a number in 0..1, got 2');
    expect(errorOf(() => number({ above: true, max: 1 }).read(0, 'r')).reason).toBe(
      'expected a number in (0, 1], got 0',
    );
    expect(errorOf(() => number().read(Number.NaN, 'x')).reason).toBe('expected a number ≥ 0, got NaN');
    expect(errorOf(() => boolean().read('yes', 'b')).reason).toBe('expected true or false, got "yes"');
    expect(errorOf(() => oneOf(['a', 'b']).read('c', 'o')).reason).toBe('expected one of a, b, got "c"');
    expect(errorOf(() => string().read({}, 's')).reason).toBe('expected a string, got a mapping');
    expect(errorOf(() => oneOf(['a']).read('y'.repeat(500), 'o')).reason).toBe(
      `expected one of a, got ${JSON.stringify('y'.repeat(60))}…`,
    );
  });

  it('makes a required field’s absence an error saying what belongs there', () => {
    const s = section({ match: string().required('a regex'), id: string() });
    expect(errorOf(() => s.parse({ id: 'x' })).message).toBe('match: missing (a regex)');
    expect(errorOf(() => s.parse({ match: 'x' })).message).toBe('id: missing');
  });

  it('runs checks and conversions at the path of the value, and a section check on the whole', () => {
    const s = section({
      hint: string().check((h) => (h.includes('{key}') ? undefined : 'must contain {key}')),
    }).to((v, path) => {
      if (v.hint === '{key}') throw new ConfigError(`${path}.hint`, 'too short');
      return v;
    });
    expect(errorOf(() => s.parse({ hint: 'no' }, 'store')).message).toBe('store.hint: must contain {key}');
    expect(errorOf(() => s.parse({ hint: '{key}' }, 'store')).message).toBe('store.hint: too short');
    expect(s.parse({ hint: ' {key}' })).toEqual({ hint: ' {key}' });
  });

  it('refuses a key with its own reason before calling it unknown', () => {
    const s = section(
      { api_key_env: string().optional() },
      { refused: { api_key: 'name a variable instead' } },
    );
    expect(errorOf(() => s.parse({ api_key: 'sk-1' })).message).toBe('api_key: name a variable instead');
  });

  it('says "field" where the format calls its keys fields', () => {
    const s = section({ max_lines: integer().optional() }, { noun: 'field' });
    expect(errorOf(() => s.parse({ max_line: 1 })).reason).toBe(
      'unknown field (did you mean max_lines?) (known: max_lines)',
    );
  });

  it('reads a mapping of chosen names, checking each name, and keeps __proto__ a plain key', () => {
    const r = record(integer(), {
      what: 'a mapping of name → count',
      badName: (n) => (n.startsWith('x') ? 'no x names' : undefined),
    });
    expect(r.read({ a: 1, b: 2 }, 'counts')).toEqual({ a: 1, b: 2 });
    expect(errorOf(() => r.read({ xa: 1 }, 'counts')).message).toBe('counts.xa: no x names');
    expect(errorOf(() => r.read({ a: 'x' }, 'counts')).message).toBe(
      'counts.a: expected an integer ≥ 0, got "x"',
    );
    expect(errorOf(() => r.read([], 'counts')).message).toBe(
      'counts: expected a mapping of name → count, got a list',
    );
    const parsed = r.read(JSON.parse('{"__proto__": 3}'), 'counts');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__']);
  });

  it('re-roots the errors of another module’s parser at the path it sits at', () => {
    const inner = section({ head_lines: integer() });
    const outer = section({ collapse: parsedBy((raw) => inner.parse(raw)).optional() });
    expect(errorOf(() => outer.parse({ collapse: { head_lines: 'x' } }, 'components')).message).toBe(
      'components.collapse.head_lines: expected an integer ≥ 0, got "x"',
    );
    const thrower = section({ c: parsedBy(() => JSON.parse('{')).optional() });
    expect(errorOf(() => thrower.parse({ c: 1 })).path).toBe('c');
  });

  it('lets a value be read by a function of its own', () => {
    const one = field((raw, path) => {
      if (raw !== 1) throw new ConfigError(path, 'expected 1');
      return 1 as const;
    });
    expect(section({ v: one }).parse({ v: 1 })).toEqual({ v: 1 });
    expect(errorOf(() => section({ v: one }).parse({ v: 2 })).message).toBe('v: expected 1');
  });
});

describe('did you mean', () => {
  it('suggests the nearest name within two edits, a swap of neighbours counting as one', () => {
    expect(nearest('head_line', ['tail_lines', 'head_lines'])).toBe('head_lines');
    expect(nearest('ttl_dyas', ['ttl_days'])).toBe('ttl_days');
    expect(nearest('summarise', ['summarize', 'mask'])).toBe('summarize');
    expect(nearest('completely', ['head_lines'])).toBeUndefined();
    expect(editDistance('expnad', 'expand')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });
});
