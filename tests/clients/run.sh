#!/usr/bin/env bash
# Runs the Node.js client tests (node-redis and ioredis, pinned by package-lock.json) against one
# rbkv server: installs the pinned packages into tests/clients/node_modules with `npm ci` when they
# are missing or older than the lock file, starts SERVER_BIN on a free loopback port, runs every
# *.test.js here with node's own test runner, stops the server (which must exit 0).
# usage: tests/clients/run.sh SERVER_BIN
# Exits 77 (skip) when node or npm is missing (scripts/deps.sh test installs them) or when the
# packages cannot be installed (no registry reachable), so a machine without them skips rather
# than fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }
server_bin=$1

for tool in node npm redis-cli; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (scripts/deps.sh test)"; exit 77; }
done

# npm ci removes node_modules first, so it runs only when the installed tree does not match the
# lock file (npm writes node_modules/.package-lock.json as its record of what it installed).
if ! cmp -s <(sed -n '/"packages"/,$p' "$here/package-lock.json") \
            <(sed -n '/"packages"/,$p' "$here/node_modules/.package-lock.json" 2>/dev/null); then
  # Concurrent runs (several build dirs) must not install into the same tree at once.
  exec 9>"${TMPDIR:-/tmp}/rbkv-npm-ci.$(id -u).lock"
  flock 9
  if ! (cd "$here" && npm ci --no-audit --no-fund --loglevel=error); then
    echo "SKIP: npm ci failed (is the npm registry reachable?)"
    exit 77
  fi
  flock -u 9
fi

. "$here/../integration/server.sh"
server_start "$server_bin" || exit 1

cd "$here" || exit 1
RBKV_PORT=$SERVER_PORT node --test --test-reporter=spec ./*.test.js
status=$?
server_stop || status=1
exit "$status"
