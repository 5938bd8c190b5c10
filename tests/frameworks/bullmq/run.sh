#!/usr/bin/env bash
# BullMQ against one server: installs the packages pinned by package-lock.json here (npm ci, when
# node_modules does not match it), starts SERVER_BIN on a free loopback port and runs
# bullmq.test.js with node's test runner (which force-exits at the end, since a worker
# whose commands fail may keep connections open).
# usage: tests/frameworks/bullmq/run.sh SERVER_BIN
# Exits 77 (skip) when node or npm is missing (scripts/deps.sh test installs them) or when the
# packages cannot be installed (no registry reachable).
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }

. "$here/../../integration/npm_ci.sh"
npm_ci_or_skip "$here"
. "$here/../framework.sh"
framework_run "$1" node --test --test-force-exit --test-reporter=spec "$here/bullmq.test.js"
