/**
 * Which agent host sent a request, from its own headers, for the stats ledger (`cg stats` by host):
 * each host's row says how it recognises its own requests (sentRequest: a user-agent, an
 * originator header). Anything else is no host (the ledger then says nothing rather than guess).
 * The name given is the one runs are recorded under.
 */

import { rawHeader } from '../proxy/headers.js';
import { HOSTS } from './index.js';

export function clientHost(rawHeaders: readonly string[]): string | undefined {
  const header = (name: string) => rawHeader(rawHeaders, name);
  return HOSTS.find((h) => h.sentRequest(header))?.stats.name;
}
