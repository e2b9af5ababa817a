/**
 * Turns --components / --preset / the config file into the ordered list of pipeline stages, each
 * with its validated config: the config file's section for it, else its preset's own settings
 * (PRESET_SETTINGS), else its defaults. Explicit component names must all exist.
 */

import { COMPONENTS, findComponent } from '../components/index.js';
import { didYouMean } from '../config/nearest.js';
import type { CgConfig } from '../config.js';
import { UsageError } from '../errors.js';
import type { InputFormat } from '../input/transcript.js';
import {
  DEFAULT_PRESET_FOR_TEXT,
  DEFAULT_PRESET_FOR_TRANSCRIPT,
  isPreset,
  PRESET_NAMES,
  PRESET_SETTINGS,
  PRESETS,
} from '../presets.js';
import type { Stage } from './run.js';

export interface StageChoice {
  preset?: string;
  /** Comma-separated names from --components. */
  components?: string;
}

export interface ResolvedStages {
  stages: Stage[];
  /** Where the list came from, e.g. "preset shell" or "--components". */
  source: string;
  notes: string[];
}

export function resolveStages(choice: StageChoice, config: CgConfig, format: InputFormat): ResolvedStages {
  const notes: string[] = [];
  let names: string[];
  let source: string;
  let settings: Record<string, Record<string, unknown>> = {};
  if (choice.components !== undefined) {
    names = choice.components
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const name of names) {
      if (findComponent(name)) continue;
      const known = COMPONENTS.map((c) => c.name);
      throw new UsageError(
        `unknown component "${name}"${didYouMean(name, known)} (available: ${known.join(', ')})`,
      );
    }
    source = '--components';
  } else {
    const preset =
      choice.preset ??
      config.preset ??
      (format === 'text' ? DEFAULT_PRESET_FOR_TEXT : DEFAULT_PRESET_FOR_TRANSCRIPT);
    if (!isPreset(preset)) {
      throw new UsageError(
        `unknown preset "${preset}"${didYouMean(preset, PRESET_NAMES)} (known: ${PRESET_NAMES.join(', ')})`,
      );
    }
    names = [...PRESETS[preset]];
    settings = PRESET_SETTINGS[preset] ?? {};
    source = `preset ${preset}`;
  }
  const seen = new Set<string>();
  const stages: Stage[] = [];
  for (const name of names) {
    if (seen.has(name)) continue;
    seen.add(name);
    const component = findComponent(name)!;
    const config_ = Object.hasOwn(config.components, name)
      ? config.components[name]
      : Object.hasOwn(settings, name)
        ? component.parseConfig(settings[name])
        : component.defaults;
    stages.push({ component, config: config_ });
  }
  return { stages, source, notes };
}
