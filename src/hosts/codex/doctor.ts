/**
 * What keeps an installed Codex hook from working, for `cg doctor`: Codex runs a hook only once the
 * user trusted it (`codex exec` skips an untrusted one silently; the trust is a `trusted_hash`
 * under the hook's `FILE:pre_tool_use` entry in config.toml), and in its workspace-write sandbox
 * `cg run` can write its store only inside the writable roots (else output passes through raw).
 */
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { resolveStoreDir } from '../../store/location.js';
import type { Place } from '../host.js';

export async function codexProblems(
  file: string,
  { env, cwd, home }: Omit<Place, 'scope'>,
): Promise<string[]> {
  const problems: string[] = [];
  const codexHome = env.CODEX_HOME || join(home, '.codex');
  const config = join(codexHome, 'config.toml');
  const text = existsSync(config) ? readFileSync(config, 'utf8') : '';
  if (!text.includes(`${file}:pre_tool_use`) || !/trusted_hash\s*=/.test(text)) {
    problems.push(
      `Codex has not trusted this hook (codex exec skips it silently): open /hooks in Codex and trust "cg hook codex"`,
    );
  }
  const store = resolveStoreDir(env);
  const roots = [...text.matchAll(/writable_roots\s*=\s*\[([^\]]*)\]/g)].flatMap((m) =>
    [...m[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((x) => x[1]!),
  );
  const writable = [cwd, '/tmp', env.TMPDIR ?? tmpdir(), ...roots].map((r) => resolve(r));
  const inside = writable.some((r) => store === r || store.startsWith(r + sep));
  if (!inside && !/sandbox_mode\s*=\s*"danger-full-access"/.test(text)) {
    problems.push(
      `in Codex's workspace-write sandbox cg cannot write its store ${store} (output passes through raw, no markers): add it to writable_roots under [sandbox_workspace_write] in ${config}`,
    );
  }
  return problems;
}
