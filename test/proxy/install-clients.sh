#!/usr/bin/env bash
# Installs the real agent clients the proxy's client tests drive, pinned, into one directory
# (default /work/cache/clients-proxy; CG_PROXY_CLIENTS overrides). Never the project's node_modules.
# Exit 0 when both are installed, non-zero otherwise: the test runner then skips with a message.
set -u
dir="${CG_PROXY_CLIENTS:-/work/cache/clients-proxy}"
mkdir -p "$dir"
cd "$dir" || exit 1
[ -f package.json ] || echo '{"name":"cg-proxy-clients","private":true}' > package.json
npm install --no-audit --no-fund --save-exact \
  @anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0 >install.log 2>&1 || {
  echo "install failed; see $dir/install.log" >&2
  exit 1
}
echo "$dir"
