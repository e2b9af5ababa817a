/**
 * The home directory cg's default locations hang from (~/.cache/cg/store, ~/.local/state/cg), and
 * whether it is there. cg never creates a missing home: HOME=/nonexistent is how services, CI users
 * and sandboxes say "this user has no home", and a recursive mkdir would make one (as root, owned by
 * root). A default location under a missing home is not used at all; the caller says so and runs
 * without it.
 */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';

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
