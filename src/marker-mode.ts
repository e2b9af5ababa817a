/**
 * How a marker is written: `full` is `<<cg:KEY>>` plus the hint template (store.hint, by default
 * ` [full output: cg expand KEY]`); `compact` is the marker alone, for an agent that has already
 * been told once what markers are and how to expand them (`cg init agents-md`, a hook's context, a
 * proxy's note). The switch is the hint: compact is exactly `store.hint: ""`, so the pipeline's
 * never-worse bound and every token count see the marker as it is written — a compact marker is
 * counted at its real cost, never assumed free.
 *
 * Chosen, last wins: the config's `store.hint` (or `store.marker`), then CG_MARKER=compact|full in
 * the environment — which is how a host adapter that has told the agent about markers turns them
 * compact for the runs it starts.
 */
import { ConfigError } from './errors.js';
import { DEFAULT_HINT } from './store/marker.js';

export const MARKER_MODES = ['full', 'compact'] as const;
export type MarkerMode = (typeof MARKER_MODES)[number];

/** The hint template a mode writes after the marker: compact writes none. */
export function hintFor(mode: MarkerMode, configured: string = DEFAULT_HINT): string {
  if (mode === 'compact') return '';
  // `full` over a config that made markers compact brings the default hint back.
  return configured === '' ? DEFAULT_HINT : configured;
}

/** CG_MARKER, when set: `compact` or `full`; anything else is a config error naming the variable. */
export function markerModeFromEnv(env: NodeJS.ProcessEnv): MarkerMode | undefined {
  const raw = env.CG_MARKER;
  if (raw === undefined || raw === '') return undefined;
  if ((MARKER_MODES as readonly string[]).includes(raw)) return raw as MarkerMode;
  throw new ConfigError(
    'CG_MARKER',
    `expected one of ${MARKER_MODES.join(', ')}, got ${JSON.stringify(raw)}`,
  );
}
