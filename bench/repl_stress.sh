#!/bin/sh
# repl_stress.sh - the replication stress test (tests/integration/test_repl_stress.c) run long:
# five servers, random role switches and chains under INCR/RPUSH load with clients in BLPOP
# everywhere, then DEBUG DIGEST, the counter, the offsets and the number of full syncs compared.
# Runs it on rbkv-server and on redis-server with the same seed; prints both summaries.
#
#   bench/repl_stress.sh [ROUNDS] [BUILD_DIR]      # default 300 rounds, build/
#   SEED=<n> bench/repl_stress.sh                  # replay a run
set -eu
rounds=${1:-300}
build=${2:-build}
prog="$build/tests/test_integration_repl_stress"
[ -x "$prog" ] || { echo "no $prog: build first (cmake --build $build)" >&2; exit 1; }
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
status=0
for bin in "$build/server/rbkv-server" redis-server; do
    echo "== $bin, $rounds rounds, SEED=$seed"
    out=$(mktemp)
    SEED=$seed RBKV_REPL_STRESS_ROUNDS=$rounds "$prog" "$bin" >"$out" 2>&1 || status=1
    grep -v '^  round ' "$out" || true
    rm -f "$out"
done
exit $status
