import { describe, expect, it } from 'vitest';
import { defaultConfig, parseConfigObject } from '../../../src/config.js';
import { UsageError } from '../../../src/errors.js';
import { resolveStages } from '../../../src/pipeline/resolve-stages.js';
import { PRESET_NAMES, PRESETS } from '../../../src/presets.js';

const names = (r: ReturnType<typeof resolveStages>) => r.stages.map((s) => s.component.name);

describe('resolveStages', () => {
  it('uses the shell preset for raw text and balanced for request bodies by default', () => {
    expect(resolveStages({}, defaultConfig(), 'text').source).toBe('preset shell');
    expect(resolveStages({}, defaultConfig(), 'anthropic').source).toBe('preset balanced');
  });

  it('knows every component each preset names', () => {
    for (const preset of PRESET_NAMES) {
      const r = resolveStages({ preset }, defaultConfig(), 'text');
      expect(names(r)).toEqual([...PRESETS[preset]]);
    }
  });

  it('takes --components over any preset, in the order given, without duplicates', () => {
    const r = resolveStages(
      { preset: 'safe', components: 'collapse, format,collapse' },
      defaultConfig(),
      'text',
    );
    expect(names(r)).toEqual(['collapse', 'format']);
  });

  it('refuses unknown component and preset names', () => {
    expect(() => resolveStages({ components: 'format,bogus' }, defaultConfig(), 'text')).toThrow(UsageError);
    expect(() => resolveStages({ components: 'bogus' }, defaultConfig(), 'text')).toThrow(
      /unknown component "bogus"/,
    );
    expect(() => resolveStages({ preset: 'turbo' }, defaultConfig(), 'text')).toThrow(
      /unknown preset "turbo"/,
    );
  });

  it("hands a stage its preset's own settings, which a config section replaces", () => {
    const skeletonOf = (r: ReturnType<typeof resolveStages>) =>
      r.stages.find((s) => s.component.name === 'skeleton')?.config as Record<string, unknown>;
    expect(skeletonOf(resolveStages({}, defaultConfig(), 'text'))).toMatchObject({
      min_file_tokens: 2000,
      min_tokens: 80,
    });
    // Another preset, or --components, gets the component's defaults.
    expect(skeletonOf(resolveStages({ preset: 'coding' }, defaultConfig(), 'text'))).toMatchObject({
      min_file_tokens: 0,
    });
    expect(skeletonOf(resolveStages({ components: 'skeleton' }, defaultConfig(), 'text'))).toMatchObject({
      min_file_tokens: 0,
    });
    const cfg = parseConfigObject({ components: { skeleton: { target_ratio: 0.5 } } });
    expect(skeletonOf(resolveStages({}, cfg, 'text'))).toMatchObject({
      min_file_tokens: 0,
      target_ratio: 0.5,
    });
  });

  it('hands each stage its config from the file, or the defaults', () => {
    const cfg = parseConfigObject({ preset: 'shell', components: { collapse: { max_tokens: 10 } } });
    const r = resolveStages({}, cfg, 'text');
    const collapse = r.stages.find((s) => s.component.name === 'collapse');
    expect(collapse?.config).toMatchObject({ max_tokens: 10 });
    const format = r.stages.find((s) => s.component.name === 'format');
    expect(format?.config).toEqual(format?.component.defaults);
  });
});
