/**
 * `cg doctor`'s proxy section for Codex: does a model_provider in its config.toml point at the
 * proxy. Codex's provider lives in config.toml, which cg reads as text and never edits.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ProxyDoctor } from '../host.js';

export const CODEX_PROXY_DOCTOR: ProxyDoctor = {
  configuredUrl: () => undefined,
  checks(env, url) {
    const codexConfig = join(env.CODEX_HOME || join(env.HOME || homedir(), '.codex'), 'config.toml');
    const toml = existsSync(codexConfig) ? readFileSync(codexConfig, 'utf8') : '';
    return [
      toml.includes(`base_url = "${url}/v1"`)
        ? { name: 'codex', status: 'ok', detail: `a Codex model_provider points at it (${codexConfig})` }
        : {
            name: 'codex',
            status: 'warn',
            detail: `no Codex model_provider points at ${url}/v1: \`cg init codex --proxy\` prints the lines`,
          },
    ];
  },
};
