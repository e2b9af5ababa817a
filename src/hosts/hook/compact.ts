/**
 * Compacts the texts an agent host hands its hook, for a model reader, through the same engine as
 * `cmd | cg` (src/engine.ts compactText: the pipeline owns every gate — verbatim errors and
 * `cg expand` output, reversible stash before marker, never-worse, fail-open). The user's config,
 * filters and store apply as they do on the command line; the hint after a marker is the host's
 * (how its model gets the original back) unless the config sets its own. Each run is recorded in
 * the stats ledger under the host's session id.
 *
 * Start-up is the hook's cost on every tool call, so nothing heavy is imported until a text is big
 * enough for a rewrite to pay for its marker; smaller texts come back unchanged at once. Whatever
 * goes wrong — a broken config, a store that cannot be written, a component that throws — a text
 * comes back undefined ("leave it as it was"), never an exception.
 */
import type { ModelText } from '../host.js';

/** Below this many UTF-16 units a marker and hint cost about what a rewrite could save. */
export const MIN_CHARS = 1024;

export interface CompactForModelOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The hint template for this host's model (`{key}` filled in); the config's own hint wins. */
  hint?: string;
  /** The host's session id, for the stats ledger. */
  session?: string;
  /** The host the output goes to (claude, gemini), for the stats ledger's host-capped figures. */
  host?: string;
  /** Told what happened, for CG_HOOK_DEBUG. */
  debug?: (line: string) => void;
}

export interface Compacted {
  /** Each text compacted, or undefined where it stays as it was. */
  texts: (string | undefined)[];
  /** Stashes a text in the same store, giving its key (undefined when it cannot). */
  stash(text: string): Promise<string | undefined>;
}

const nothing = async (): Promise<undefined> => undefined;

/** The texts compacted for a model reader. Never throws. */
export async function compactForModel(
  texts: readonly ModelText[],
  o: CompactForModelOptions,
): Promise<Compacted> {
  const worth = texts.map((t) => t.text.length >= MIN_CHARS && !t.text.includes('\u0000'));
  if (!worth.some(Boolean)) {
    o.debug?.(`left alone: every text is under ${MIN_CHARS} characters`);
    return { texts: texts.map(() => undefined), stash: nothing };
  }
  try {
    return await compactEach(texts, worth, o);
  } catch (err) {
    o.debug?.(`left alone: ${err instanceof Error ? err.message : String(err)}`);
    return { texts: texts.map(() => undefined), stash: nothing };
  }
}

async function compactEach(
  texts: readonly ModelText[],
  worth: readonly boolean[],
  o: CompactForModelOptions,
): Promise<Compacted> {
  const [{ loadConfig }, { compactText }, { openDoor }, marker] = await Promise.all([
    import('../../config.js'),
    import('../../engine.js'),
    import('../../door.js'),
    import('../../store/marker.js'),
  ]);
  const loaded = await loadConfig(undefined, o.env, o.cwd);
  const config =
    o.hint !== undefined && loaded.store.hint === marker.DEFAULT_HINT
      ? { ...loaded, store: { ...loaded.store, hint: o.hint } }
      : loaded;
  const { store, tokens, filters } = openDoor(config, { env: o.env, cwd: o.cwd });
  const out: (string | undefined)[] = [];
  for (const [i, t] of texts.entries()) {
    if (!worth[i]) {
      out.push(undefined);
      continue;
    }
    const events: Parameters<NonNullable<Parameters<typeof compactText>[1]['onEvent']>>[0][] = [];
    const result = await compactText(t.text, {
      config,
      format: 'text',
      store,
      tokens,
      filters,
      env: o.env,
      session: false,
      ...(t.preset !== undefined && config.preset === undefined ? { preset: t.preset } : {}),
      ...(t.command !== undefined ? { command: t.command } : {}),
      // A shell output gets no more than the host's own cut of it would show (src/hosts/limits.ts).
      ...(t.command !== undefined && o.host !== undefined ? { host: o.host } : {}),
      ...(t.lang !== undefined ? { lang: t.lang } : {}),
      ...(t.isError ? { isError: true } : {}),
      onEvent: (e) => events.push(e),
    });
    if (filters.error) {
      o.debug?.(`left alone: ${filters.error.message}`);
      return { texts: texts.map(() => undefined), stash: nothing };
    }
    o.debug?.(
      result.changed
        ? `compacted ${t.text.length} → ${result.output.length} characters (${result.source})`
        : `left alone: nothing in ${result.source} made it smaller`,
    );
    out.push(result.changed ? result.output : undefined);
    // A run that changed nothing may still have paid for a model call: that is recorded too.
    if (result.changed || events.some((e) => e.modelUsage))
      await record(events, t, o, config.tokenizer, store.dir);
  }
  const stash = async (text: string) => {
    const put = await store.put(text);
    return put.ok ? put.key : undefined;
  };
  return { texts: out, stash };
}

async function record(
  events: Parameters<typeof import('../../stats/index.js').recordCompaction>[0],
  t: ModelText,
  o: CompactForModelOptions,
  tokenizer: import('../../tokens.js').TokenizerName,
  storeDir: string,
): Promise<void> {
  const { recordCompaction } = await import('../../stats/index.js');
  await recordCompaction(events, {
    format: 'text',
    tokenizer,
    storeDir,
    env: o.env,
    ...(t.command !== undefined ? { command: t.command } : {}),
    ...(o.session !== undefined ? { session: o.session } : {}),
    ...(o.host !== undefined ? { host: o.host } : {}),
    via: 'hook',
  });
}
