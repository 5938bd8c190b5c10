#!/usr/bin/env bash
# `redis-benchmark --cluster` against rbkv in cluster mode (issue 35): six SERVER_BIN nodes made a
# cluster of 3 primaries and 3 replicas by `redis-cli --cluster create --cluster-replicas 1`
# (cluster.sh); redis-benchmark --cluster runs SET, GET and INCR through it and must exit 0 with
# a figure for each test; then the keys it wrote are there: every primary holds some (the tool
# puts each node's keys under a hash tag of that node's slots), each value has the 16 bytes of
# -d 16, and redis-cli -c reads one through any node. A smoke test, no timing asserted.
# usage: tests/integration/test_cluster_benchmark.sh SERVER_BIN
# Exits 77 (skip) without redis-cli or redis-benchmark (scripts/deps.sh test).
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }
server_bin=$1
for tool in redis-cli redis-benchmark; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (scripts/deps.sh test)"; exit 77; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/rbkv-cluster-bench-XXXXXX") || exit 1
# shellcheck disable=SC2034 # read by instances.sh
READY_SECONDS=30
# shellcheck source-path=SCRIPTDIR source=cluster.sh
. "$here/cluster.sh"
cluster_create 3 1 || exit 1

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

out=$(redis-benchmark --cluster -p "${CLUSTER_PORTS[0]}" -t set,get,incr -n 20000 -r 5000 -d 16 \
        -c 20 -q 2>&1)
status=$?
echo "$out" | tr '\r' '\n' | grep 'requests per second'
[ "$status" -eq 0 ] || fail "redis-benchmark --cluster exited $status: $out"
for t in SET GET INCR; do
  echo "$out" | tr '\r' '\n' | grep -q "^$t: [0-9.]* requests per second" || fail "no $t figure"
done

total=0
for p in "${CLUSTER_PORTS[@]}"; do
  [ "$(cli "$p" ROLE | head -1)" = master ] || continue
  n=$(cli "$p" DBSIZE)
  [ "$n" -gt 0 ] || fail "primary $p holds no key"
  total=$((total + n))
  key=$(cli "$p" --scan --pattern 'key:*' | head -1)
  [ -n "$key" ] || { fail "primary $p has no key:* key"; continue; }
  len=$(cli "$p" STRLEN "$key")
  [ "$len" = 16 ] || fail "$key on $p is $len bytes, not 16"
  # Through another node: redis-cli -c follows the -MOVED.
  other=${CLUSTER_PORTS[0]}
  [ "$other" = "$p" ] && other=${CLUSTER_PORTS[1]}
  [ "$(redis-cli -c -p "$other" STRLEN "$key")" = 16 ] || fail "redis-cli -c via $other did not read $key"
done
echo "the primaries hold $total keys"
[ "$total" -gt 0 ] || fail "no key written"
if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "redis-benchmark --cluster: ok"
