/**
 * The component registry: a static list, so start-up never scans the disk. Each component module
 * is small and imports its heavy dependencies lazily inside run().
 */
import type { Component } from '../component.js';
import { collapse } from './collapse.js';
import { format } from './format.js';
import { toon } from './toon.js';

export const COMPONENTS: readonly Component[] = [format, toon, collapse];

export function findComponent(name: string): Component | undefined {
  return COMPONENTS.find((c) => c.name === name);
}
