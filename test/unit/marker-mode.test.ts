import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfigObject } from '../../src/config.js';
import { hintFor, markerModeFromEnv } from '../../src/marker-mode.js';
import { DEFAULT_HINT } from '../../src/store/marker.js';
import { tempDir } from '../helpers.js';

describe('marker mode', () => {
  it('compact is the marker with no hint; full brings the default hint back over a compact config', () => {
    expect(hintFor('compact', DEFAULT_HINT)).toBe('');
    expect(hintFor('full', '')).toBe(DEFAULT_HINT);
    expect(hintFor('full', ' [cg_expand {key}]')).toBe(' [cg_expand {key}]');
  });

  it('store.marker sets the hint, and refuses compact beside a non-empty store.hint', () => {
    expect(parseConfigObject({ store: { marker: 'compact' } }).store.hint).toBe('');
    expect(parseConfigObject({ store: { marker: 'compact', hint: '' } }).store.hint).toBe('');
    expect(() => parseConfigObject({ store: { marker: 'compact', hint: ' [x {key}]' } })).toThrow(
      /store\.marker/,
    );
    expect(() => parseConfigObject({ store: { marker: 'tiny' } })).toThrow(/store\.marker/);
  });

  it('CG_MARKER overrides the config file, and an unknown value is a config error', async () => {
    const env = { XDG_CONFIG_HOME: tempDir(), CG_MARKER: 'compact' };
    expect((await loadConfig(undefined, env, tempDir())).store.hint).toBe('');
    expect((await loadConfig(undefined, { ...env, CG_MARKER: 'full' }, tempDir())).store.hint).toBe(
      DEFAULT_HINT,
    );
    expect(markerModeFromEnv({})).toBeUndefined();
    expect(() => markerModeFromEnv({ CG_MARKER: 'tiny' })).toThrow(/CG_MARKER/);
  });
});
