#!/usr/bin/env bash
# Runs redis-benchmark against a fresh server: every test must finish and report a rate.
# usage: tests/integration/benchmark_smoke.sh SERVER_BIN
# Exits 0 when redis-benchmark exits 0 and prints a requests-per-second figure for each test and
# no error; 1 otherwise; 77 (skip) without redis-benchmark.
set -u

if [ $# -ne 1 ]; then
  echo "usage: $0 SERVER_BIN" >&2
  exit 2
fi
command -v redis-benchmark >/dev/null || { echo "SKIP: redis-benchmark not found" >&2; exit 77; }
command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not found" >&2; exit 77; }
. "$(dirname "$0")/server.sh"

# The name redis-benchmark -q gives each test of "-t ping,set,get,incr,mset".
expected_tests=(PING_INLINE PING_MBULK SET GET INCR "MSET (10 keys)")

server_start "$1" || exit 1
failed=0
out="$SERVER_DIR/benchmark.out"
redis-benchmark -p "$SERVER_PORT" -t ping,set,get,incr,mset -n 100000 -q >"$out" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "FAIL: redis-benchmark exited with status $rc" >&2
  failed=1
fi
# -q rewrites its progress line with \r; the final figures follow the last \r of each line.
figures=$(tr '\r' '\n' <"$out")
grep 'requests per second' <<<"$figures" | sed 's/^ *//'
for t in "${expected_tests[@]}"; do
  if ! grep -qE "^ *$(sed 's/[()]/\\&/g' <<<"$t"): [0-9.]+ requests per second" <<<"$figures"; then
    echo "FAIL: no requests-per-second figure for $t" >&2
    failed=1
  fi
done
if grep -qiE 'error|ERR ' "$out"; then
  echo "FAIL: redis-benchmark reported errors:" >&2
  grep -iE 'error|ERR ' "$out" | head -5 >&2
  failed=1
fi
server_stop || failed=1
[ "$failed" -eq 0 ] && echo "benchmark smoke: all ${#expected_tests[@]} tests ran"
exit "$failed"
