import { closeSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isTerminal, linuxMajor } from '../../src/terminal.js';

describe('linuxMajor', () => {
  it('reads the major of old and new style device numbers', () => {
    expect(linuxMajor((1 << 8) | 3)).toBe(1); // /dev/null
    expect(linuxMajor((136 << 8) | 5)).toBe(136); // /dev/pts/5
    // /dev/pts/300: the minor's high bits sit above the major's low 12 bits
    expect(linuxMajor((136 << 8) | (300 & 0xff) | ((300 & ~0xff) << 12))).toBe(136);
    expect(linuxMajor(0x1000 * 2 ** 32 + (2 << 8))).toBe(0x1002);
  });
});

describe('isTerminal', () => {
  it('is false for /dev/null, a file and a closed descriptor', () => {
    const fd = openSync('/dev/null', 'r');
    try {
      expect(isTerminal(fd)).toBe(false);
    } finally {
      closeSync(fd);
    }
    const file = openSync(import.meta.filename, 'r');
    try {
      expect(isTerminal(file)).toBe(false);
    } finally {
      closeSync(file);
    }
    expect(isTerminal(1 << 20)).toBe(false);
  });
});
