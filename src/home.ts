/**
 * The home directory cg's default locations hang from (~/.cache/cg/store, ~/.local/state/cg), and
 * whether it is there. cg never creates a missing home: HOME=/nonexistent is how services, CI users
 * and sandboxes say "this user has no home", and a recursive mkdir would make one (as root, owned by
 * root). A default location under a missing home is not used at all; the caller says so and runs
 * without it.
 */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';

/** The home directory: HOME, else the account's (os.homedir). */
export function homeOf(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME || homedir();
}

const seen = new Map<string, boolean>();

/** Why nothing may be made under the home directory (it is not an existing directory), if so. */
export function missingHome(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const home = homeOf(env);
  let there = seen.get(home);
  if (there === undefined) {
    try {
      there = statSync(home).isDirectory();
    } catch {
      there = false;
    }
    seen.set(home, there);
  }
  return there ? undefined : `the home directory ${home} does not exist`;
}

/**
 * Why a location that defaults to one under the home directory cannot be had: neither the variable
 * naming it (`explicit`) nor an absolute XDG base (`xdg`) is set, and the home is missing.
 */
export function homelessDefault(env: NodeJS.ProcessEnv, explicit: string, xdg: string): string | undefined {
  if (env[explicit]) return undefined;
  const base = env[xdg];
  // The XDG spec says a relative value is invalid and must be ignored, as the locations do.
  if (base && isAbsolute(base)) return undefined;
  return missingHome(env);
}
