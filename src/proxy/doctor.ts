/**
 * proxyDoctor(): what `cg doctor` reports about the proxy — is a `cg proxy` answering (GET
 * /_cg/health), and does each host `cg proxy` serves point at it (its row's proxyDoctor, in
 * src/hosts/). Each check is one line with a status; nothing here throws, writes, or prints a
 * secret (it reads only URLs from settings and env). The URL checked is the loopback one a host is
 * configured with (the first in the table), else the default http://127.0.0.1:8787.
 */
import { HOSTS } from '../hosts/index.js';
import { DEFAULT_PROXY_URL } from './setup.js';

export interface DoctorCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

export interface ProxyDoctorOptions {
  env?: NodeJS.ProcessEnv;
  /** The proxy URL to check (default: the loopback one a host is set to, else the default). */
  url?: string;
  timeoutMs?: number;
}

export async function proxyDoctor(o: ProxyDoctorOptions = {}): Promise<DoctorCheck[]> {
  const env = o.env ?? process.env;
  const doctors = HOSTS.flatMap((h) => (h.proxyDoctor ? [h.proxyDoctor] : []));
  const local = doctors.map((d) => d.configuredUrl(env)).find((u) => u !== undefined);
  const url = (o.url ?? local ?? DEFAULT_PROXY_URL).replace(/\/+$/, '');
  const checks: DoctorCheck[] = [];

  try {
    const res = await fetch(`${url}/_cg/health`, { signal: AbortSignal.timeout(o.timeoutMs ?? 1500) });
    const body = (await res.json()) as { cg?: unknown; preset?: unknown; observe?: unknown };
    checks.push(
      body.cg === 'proxy'
        ? {
            name: 'proxy',
            status: 'ok',
            detail: `cg proxy answers at ${url} (preset ${String(body.preset)}${body.observe ? ', observe only' : ''})`,
          }
        : { name: 'proxy', status: 'fail', detail: `${url} answers, but it is not cg proxy` },
    );
  } catch {
    checks.push({
      name: 'proxy',
      status: 'fail',
      detail: `no cg proxy answers at ${url}: start it with \`cg proxy\``,
    });
  }

  for (const d of doctors) checks.push(...d.checks(env, url));
  return checks;
}
