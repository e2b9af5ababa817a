#!/usr/bin/env bash
# npm run test:proxy-clients: installs the pinned real clients (Claude Code, Codex) into their own
# cache directory, then runs test/proxy/*.real.ts inside a loopback-only network namespace. If the
# clients cannot be installed or no namespace can be made, it says so and skips — it never reports
# a pass for tests it did not run.
set -u
cd "$(dirname "$0")/../.."
if ! bash test/proxy/install-clients.sh >/dev/null; then
  echo "test:proxy-clients SKIPPED: the pinned clients could not be installed (see ${CG_PROXY_CLIENTS:-/work/cache/clients-proxy}/install.log)"
  exit 0
fi
if ! unshare -n true 2>/dev/null; then
  echo "test:proxy-clients SKIPPED: cannot create a network namespace (unshare -n needs root)"
  exit 0
fi
node scripts/build.mjs || exit 1
exec unshare -n bash -c 'ip link set lo up && npx vitest run --config test/proxy/vitest.clients.config.ts'
