#!/usr/bin/env bash
# Exporting every key of a three-primary cluster: rbkv-cli -c range (each primary's keys streamed
# and merged in order on the client), the same range merged by one rbkv primary (rbkv-cli range
# without -c: the node's cluster-wide KRANGE), the same keys on one standalone rbkv, and what
# Redis has for it: redis-cli --scan on each primary of a redis-server 7.0 cluster in turn (no
# order) and on one standalone redis-server.
#   bench/cluster_export_vs_redis.sh [--keys N] [--rounds K] [--quick]
# Keys key:000000000000{T} .. (N in all, default 300000, 16-byte values), T one of three tags, one
# per primary, so key order interleaves the nodes. Each case runs K rounds (default 3) taking
# turns, its output to /dev/null; reported: the best time, keys per second, and the ratio to
# redis-cli --scan over the Redis cluster (higher is faster).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
KEYS=300000 ROUNDS=3
while [ $# -gt 0 ]; do
  case $1 in
    --keys) KEYS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --quick) KEYS=30000; ROUNDS=1; shift ;;
    *) echo "usage: $0 [--keys N] [--rounds K] [--quick]" >&2; exit 2 ;;
  esac
done
ensure_built
CLI=${RBKV_CLI:-$ROOT/build/client/rbkv-cli}
work=$(mktemp -d "${TMPDIR:-/tmp}/export-bench-XXXXXX")
trap 'bench_cleanup; rm -rf "$work"' EXIT

cluster_of_three "$work" rbkv "$RBKV_BIN"; rbkv_ports=("${CLUSTER_PORTS[@]}")
cluster_of_three "$work" redis "$(command -v redis-server)"; redis_ports=("${CLUSTER_PORTS[@]}")
SINGLE=$(free_port); start_rbkv "$SINGLE" --save '' --appendonly no
REDIS=$(free_port); start_redis "$REDIS"

# owner PORT... KEY: the index among PORTS of the primary serving KEY's slot.
owner() {
  local key=${*: -1} ports=("${@:1:$#-1}") slot i r lo hi
  slot=$(redis-cli -p "${ports[0]}" cluster keyslot "$key")
  for i in "${!ports[@]}"; do
    for r in $(redis-cli -p "${ports[$i]}" cluster nodes | grep myself | cut -d' ' -f9-); do
      lo=${r%-*}; hi=${r#*-}
      if [ "$slot" -ge "$lo" ] && [ "$slot" -le "$hi" ]; then echo "$i"; return; fi
    done
  done
}
# tags PORT...: one tag per primary, in the order of PORTS.
tags_of() {
  local t i found=("" "" "")
  for t in $(seq 0 300); do
    i=$(owner "$@" "t$t")
    [ -z "${found[$i]}" ] && found[i]="t$t"
    [ -n "${found[0]}" ] && [ -n "${found[1]}" ] && [ -n "${found[2]}" ] && break
  done
  echo "${found[@]}"
}
gen_keys() { # FROM STEP TAG
  awk -v from="$1" -v step="$2" -v tag="$3" -v n="$KEYS" 'BEGIN {
    for (i = from; i < n; i += step) {
      k = sprintf("key:%012d{%s}", i, tag)
      printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$16\r\nvalue:%010d\r\n", length(k), k, i } }'
}
read -ra rbkv_tags <<<"$(tags_of "${rbkv_ports[@]}")"
read -ra redis_tags <<<"$(tags_of "${redis_ports[@]}")"
for i in 0 1 2; do
  load "${rbkv_ports[$i]}" gen_keys "$i" 3 "${rbkv_tags[$i]}"
  load "$SINGLE" gen_keys "$i" 3 "${rbkv_tags[$i]}"
  load "${redis_ports[$i]}" gen_keys "$i" 3 "${redis_tags[$i]}"
  load "$REDIS" gen_keys "$i" 3 "${redis_tags[$i]}"
done

# seconds CMD...: how long CMD took, its output to /dev/null; exits the script if it failed.
seconds() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null || { echo "failed: $*" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
scan_all() { local p; for p in "$@"; do redis-cli -p "$p" --scan || return 1; done; }
n=$("$CLI" -p "${rbkv_ports[0]}" -c count - +)
[ "$n" = "$KEYS" ] || { echo "the rbkv cluster holds $n keys, not $KEYS" >&2; exit 1; }
a=$("$CLI" -p "${rbkv_ports[0]}" -c range - + --values | md5sum)
b=$("$CLI" -p "$SINGLE" range - + --values | md5sum)
[ "$a" = "$b" ] || { echo "rbkv-cli -c did not list what the standalone node lists" >&2; exit 1; }
[ "$(scan_all "${redis_ports[@]}" | wc -l)" = "$KEYS" ] || { echo "the Redis cluster lost keys" >&2; exit 1; }

declare -A best
for _ in $(seq "$ROUNDS"); do
  keep_best "rbkv-cli -c range" "$(seconds "$CLI" -p "${rbkv_ports[0]}" -c range - +)"
  keep_best "rbkv-cli range (node merges)" "$(seconds "$CLI" -p "${rbkv_ports[0]}" range - +)"
  keep_best "rbkv-cli range (one node)" "$(seconds "$CLI" -p "$SINGLE" range - +)"
  keep_best "redis-cli --scan x3 (cluster)" "$(seconds scan_all "${redis_ports[@]}")"
  keep_best "redis-cli --scan (one node)" "$(seconds scan_all "$REDIS")"
done
base=${best["redis-cli --scan x3 (cluster)"]}
printf "%-30s %9s %12s %10s\n" case seconds keys/s "vs scan x3"
for k in "rbkv-cli -c range" "rbkv-cli range (node merges)" "rbkv-cli range (one node)" \
         "redis-cli --scan x3 (cluster)" "redis-cli --scan (one node)"; do
  printf "%-30s %9s %12.0f %10s\n" "$k" "${best[$k]}" "$(awk -v n="$KEYS" -v s="${best[$k]}" \
    'BEGIN { print n / s }')" "$(ratio "$base" "${best[$k]}")"
done
