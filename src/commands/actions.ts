/**
 * The actions of the commands that take one as their first word (`cg store info`, `cg filters
 * list`), in one light module: the CLI checks and completes them without loading the commands.
 */
export const STORE_ACTIONS = ['path', 'info', 'prune', 'clear'] as const;
export const FILTER_ACTIONS = ['list', 'show', 'verify', 'test', 'trust', 'untrust'] as const;
