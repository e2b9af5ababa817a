/**
 * The component registry: a static list, so start-up never scans the disk. Each component module
 * is small and imports its heavy dependencies lazily inside run().
 */
import type { Component } from '../component.js';
import { cacheinject } from './cacheinject.js';
import { cmdfilter } from './cmdfilter.js';
import { collapse } from './collapse.js';
import { dedup } from './dedup.js';
import { extract } from './extract.js';
import { failed_run } from './failed_run.js';
import { fold } from './fold.js';
import { format } from './format.js';
import { mask } from './mask.js';
import { phi_evict } from './phi_evict.js';
import { skeleton } from './skeleton.js';
import { smartcrush } from './smartcrush.js';
import { summarize } from './summarize.js';
import { toon } from './toon.js';

export const COMPONENTS: readonly Component[] = [
  format,
  toon,
  cmdfilter,
  skeleton,
  collapse,
  fold,
  dedup,
  failed_run,
  mask,
  phi_evict,
  smartcrush,
  extract,
  summarize,
  cacheinject,
];

export function findComponent(name: string): Component | undefined {
  return COMPONENTS.find((c) => c.name === name);
}
