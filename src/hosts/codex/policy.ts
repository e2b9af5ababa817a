/**
 * Asks Codex's own policy engine what it would do with commands, so cg rewrites only commands that
 * no rule of the user's names. Codex reads `*.rules` from the `rules/` folder of each config layer
 * (CODEX_HOME, a project's `.codex/`, /etc/codex) and evaluates every simple command of a shell
 * script against them; a matched `forbidden` rejects the call, `prompt` asks (or, in `codex exec`,
 * rejects), `allow` skips approval and the sandbox. A command wrapped in `cg run` no longer starts
 * with the words a rule names, so a rewrite of any command that matches a rule would change what
 * Codex decides: cg rewrites only when nothing matches, neither the original commands nor cg's
 * own words in front of them. The verdict comes from `codex execpolicy check` (the binary that
 * runs this hook, found through the process's ancestors, else `codex` on PATH); with no rules
 * files at all there is nothing to ask. Any doubt — an unreadable folder, a managed requirements
 * file with its own policy, a check that fails — counts as "a rule may match".
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isObject, stringAt, valueAt } from '../../json/payload.js';
import type { CommandPolicy, PolicyVerdict } from '../host.js';

export type Verdict = PolicyVerdict;

/** Whether any Codex rule (or doubt) applies to any of these argvs. */
export type PolicyCheck = CommandPolicy;

/** Requirement files that can carry an admin's exec policy (not evaluated by `execpolicy check`). */
const REQUIREMENTS = ['/etc/codex/requirements.toml', '/etc/codex/managed_config.toml'];

/** The rules files Codex would load for a session in cwd (project layers from cwd up). */
export function rulesFiles(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const home = env.CODEX_HOME || join(env.HOME || '/', '.codex');
  const dirs = [join(home, 'rules'), '/etc/codex/rules'];
  for (let d = cwd; ; d = dirname(d)) {
    dirs.push(join(d, '.codex', 'rules'));
    if (dirname(d) === d) break;
  }
  const files: string[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) if (f.endsWith('.rules')) files.push(join(dir, f));
  }
  return files;
}

/** The codex binary running this hook: the nearest ancestor process whose executable is `codex`. */
export function codexBinary(env: NodeJS.ProcessEnv): string | undefined {
  let pid = process.ppid;
  for (let depth = 0; depth < 8 && pid > 1; depth++) {
    try {
      const exe = readlinkSync(`/proc/${pid}/exe`);
      if (basename(exe) === 'codex') return exe;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      break;
    }
  }
  for (const dir of (env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'codex'))) return join(dir, 'codex');
  }
  return undefined;
}

function check(bin: string, files: readonly string[], argv: readonly string[]): Promise<Verdict> {
  const args = ['execpolicy', 'check', ...files.flatMap((f) => ['--rules', f]), '--', ...argv];
  return new Promise((resolve) => {
    execFile(bin, args, { timeout: 5000, maxBuffer: 1 << 20 }, (err, stdout) => {
      if (err)
        return resolve({
          matched: true,
          why: `codex execpolicy check failed: ${err.message.split('\n')[0]}`,
        });
      try {
        const r: unknown = JSON.parse(stdout);
        const rules = valueAt(r, 'matchedRules');
        // Anything but a list of matched rules (or none) is no verdict: a doubt counts as a match.
        if (!isObject(r) || (rules !== undefined && !Array.isArray(rules))) throw new Error('no verdict');
        resolve(
          Array.isArray(rules) && rules.length > 0
            ? {
                matched: true,
                why: `a Codex rule decides "${stringAt(r, 'decision') ?? '?'}" for ${argv.join(' ')}`,
              }
            : { matched: false },
        );
      } catch {
        resolve({ matched: true, why: 'codex execpolicy check gave no verdict' });
      }
    });
  });
}

/** The real check: Codex's own engine over the rules files it would load. */
export const codexPolicy: PolicyCheck = async (argvs, cwd, env) => {
  const present = REQUIREMENTS.find((f) => existsSync(f));
  if (present) return { matched: true, why: `${present} may hold an admin's policy` };
  let files: string[];
  try {
    files = rulesFiles(cwd, env);
  } catch (err) {
    return { matched: true, why: `cannot list Codex rules: ${(err as Error).message}` };
  }
  if (files.length === 0) return { matched: false };
  const bin = codexBinary(env);
  if (!bin) return { matched: true, why: 'rules files exist but no codex binary to evaluate them' };
  const verdicts = await Promise.all(argvs.map((a) => check(bin, files, a)));
  return verdicts.find((v) => v.matched) ?? { matched: false };
};
