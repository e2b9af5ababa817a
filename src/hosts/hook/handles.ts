/**
 * Whether cg handles a shell command a hook may rewrite (RewriteOptions.handles, rewrite.ts): its
 * program's output is heavy by nature (programs.ts), or a cg filter selects it. The filters of the
 * agent's directory are read at most once per hook call, and only when a command needs them: reading
 * them loads the DSL registry.
 */
import type { FilterSource } from '../../component.js';
import { programOf } from '../../shell/program.js';
import type { HookContext } from '../host.js';
import { isOutputHeavy } from './programs.js';

export function handlesCommand(
  cwd: string,
  o: Pick<HookContext, 'env' | 'filters'>,
): (command: string) => Promise<boolean> {
  let source: Promise<FilterSource> | undefined;
  return async (command) => {
    if (isOutputHeavy(programOf(command)?.name ?? '')) return true;
    source ??= Promise.resolve((o.filters ?? realFilters)(cwd, o.env));
    return (await (await source).select(command, '')) !== undefined;
  };
}

async function realFilters(cwd: string, env: NodeJS.ProcessEnv): Promise<FilterSource> {
  const { createFilterSource } = await import('../../dsl/registry.js');
  return createFilterSource({ cwd, env });
}
