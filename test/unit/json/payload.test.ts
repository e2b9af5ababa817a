import { describe, expect, it } from 'vitest';
import {
  arrayAt,
  filledStringAt,
  isObject,
  numberAt,
  objectAt,
  stringAt,
  stringsAt,
  valueAt,
} from '../../../src/json/payload.js';

const payload = JSON.parse(
  '{"tool_name":"Bash","cwd":"","tool_input":{"command":"ls","timeout":5},"list":["a","b"],"mixed":["a",1],"nul":null}',
);

describe('the hook payload reader', () => {
  it('gives a value at a path only when it has the asked shape', () => {
    expect(stringAt(payload, 'tool_input', 'command')).toBe('ls');
    expect(numberAt(payload, 'tool_input', 'timeout')).toBe(5);
    expect(objectAt(payload, 'tool_input')).toEqual({ command: 'ls', timeout: 5 });
    expect(stringsAt(payload, 'list')).toEqual(['a', 'b']);
    expect(arrayAt(payload, 'mixed')).toEqual(['a', 1]);
    expect(stringAt(payload, 'tool_input')).toBeUndefined();
    expect(numberAt(payload, 'tool_input', 'command')).toBeUndefined();
    expect(stringsAt(payload, 'mixed')).toBeUndefined();
    expect(objectAt(payload, 'list')).toBeUndefined();
    expect(objectAt(payload, 'nul')).toBeUndefined();
  });

  it('never throws on a step that is missing, null, a list or not an object, and reads no inherited key', () => {
    expect(stringAt(payload, 'nul', 'x')).toBeUndefined();
    expect(stringAt(payload, 'list', '0')).toBeUndefined();
    expect(stringAt('text', 'length')).toBeUndefined();
    expect(valueAt(undefined, 'a')).toBeUndefined();
    expect(valueAt(payload, 'constructor')).toBeUndefined();
    expect(valueAt(payload)).toBe(payload);
  });

  it('takes an empty string for no value where a filled one is asked, and lists and null for no object', () => {
    expect(filledStringAt(payload, 'cwd')).toBeUndefined();
    expect(filledStringAt(payload, 'tool_name')).toBe('Bash');
    expect([isObject({}), isObject([]), isObject(null), isObject('x')]).toEqual([true, false, false, false]);
  });
});
