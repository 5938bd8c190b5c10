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

command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not installed (scripts/deps.sh test)"; exit 77; }
. "$here/../integration/npm_ci.sh"
npm_ci_or_skip "$here"

. "$here/../integration/server.sh"
server_start "$server_bin" || exit 1

cd "$here" || exit 1
RBKV_PORT=$SERVER_PORT node --test --test-reporter=spec ./*.test.js
status=$?
server_stop || status=1
exit "$status"
