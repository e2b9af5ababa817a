/**
 * A FilterSource standing in for the real filter registry in hook tests: it "has a filter" for the
 * commands the builtin families cover (test runners, builds, git, package managers), matched on
 * the `$ <command>` selector the way real filters are. It also claims a few programs no real
 * filter would (less, top, vim, tail, ssh, sudo …) so the tables show that the hook's own gates,
 * not the filter lookup, keep those unwrapped.
 */
import type { FilterSource } from '../../../../src/component.js';
import type { CompiledFilter } from '../../../../src/dsl/types.js';

const MATCHERS: readonly RegExp[] = [
  /^\$ (python3? -m )?pytest\b/,
  /^\$ cargo (build|test|check|clippy)\b/,
  /^\$ go (build|test|vet)\b/,
  /^\$ (npm|pnpm|yarn|bun) (run )?(test|build|lint|dev)\b/,
  /^\$ npx (tsc|eslint|jest|vitest)\b/,
  /^\$ make\b/,
  /^\$ git (status|log|diff|show)\b/,
  /^\$ mix (test|compile|credo)\b/,
  /^\$ (apt-get|pip3?) install\b/,
  /^\$ docker (build|run|logs)\b/,
  /^\$ ls\b/,
  // Claimed only to show that the hook's gates decide, not the lookup:
  /^\$ (less|top|vim|tail|ssh|python3?|sudo|echo|cd)\b/,
];

export function fakeFilters(): FilterSource & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async select(command) {
      asked.push(command ?? '');
      const selector = `$ ${command ?? ''}`;
      return MATCHERS.some((m) => m.test(selector)) ? ({ name: 'fake' } as CompiledFilter) : undefined;
    },
  };
}
