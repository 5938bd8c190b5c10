#!/usr/bin/env bash
# Loading a dump into a three-primary cluster with rbkv-cli -c load (each command sent to its
# slot's primary, pipelined per node): into rbkv primaries and into redis-server 7.0 primaries,
# each made one cluster by redis-cli --cluster create, and, for scale, plain rbkv-cli load into one
# standalone rbkv and one standalone redis-server (Redis has no cluster-aware bulk loader:
# redis-cli --pipe sends everything to one node).
#   bench/cluster_load_vs_redis.sh [--keys N] [--rounds K] [--quick]
# Keys key:000000000000 .. (N in all, default 1000000, 16-byte values) in a tsv file. Each case
# runs K rounds (default 3) taking turns, every node flushed before each load; reported: the best
# time, keys per second, and the ratio to the same load into the Redis cluster (higher is faster).
# After each load the keys are counted on every node (DBSIZE): the load must leave N.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
KEYS=1000000 ROUNDS=3
while [ $# -gt 0 ]; do
  case $1 in
    --keys) KEYS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --quick) KEYS=50000; ROUNDS=1; shift ;;
    *) echo "usage: $0 [--keys N] [--rounds K] [--quick]" >&2; exit 2 ;;
  esac
done
ensure_built
CLI=${RBKV_CLI:-$ROOT/build/client/rbkv-cli}
work=$(mktemp -d "${TMPDIR:-/tmp}/load-bench-XXXXXX")
trap 'bench_cleanup; rm -rf "$work"' EXIT

cluster_of_three "$work" rbkv "$RBKV_BIN"; rbkv_ports=("${CLUSTER_PORTS[@]}")
cluster_of_three "$work" redis "$(command -v redis-server)"; redis_ports=("${CLUSTER_PORTS[@]}")
SINGLE=$(free_port); start_rbkv "$SINGLE" --save '' --appendonly no
REDIS=$(free_port); start_redis "$REDIS"
awk -v n="$KEYS" 'BEGIN { for (i = 0; i < n; i++) printf "key:%012d\tvalue:%010d\n", i, i }' \
  >"$work/keys.tsv"

# timed_load NAME CLI-ARGS... -- PORT...: flushes PORTS, runs rbkv-cli CLI-ARGS load keys.tsv,
# checks that PORTS hold KEYS keys between them; prints the seconds.
timed_load() {
  local args=() p n=0 t0 t1
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  for p in "$@"; do redis-cli -p "$p" flushall >/dev/null; done
  t0=$(date +%s.%N)
  "$CLI" "${args[@]}" load "$work/keys.tsv" || { echo "failed: rbkv-cli ${args[*]} load" >&2; exit 1; }
  t1=$(date +%s.%N)
  for p in "$@"; do n=$((n + $(redis-cli -p "$p" dbsize))); done
  [ "$n" = "$KEYS" ] || { echo "rbkv-cli ${args[*]} load left $n keys, not $KEYS" >&2; exit 1; }
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

declare -A best
for _ in $(seq "$ROUNDS"); do
  keep_best "-c load, rbkv cluster" "$(timed_load -p "${rbkv_ports[0]}" -c -- "${rbkv_ports[@]}")"
  keep_best "-c load, Redis cluster" "$(timed_load -p "${redis_ports[0]}" -c -- "${redis_ports[@]}")"
  keep_best "load, one rbkv" "$(timed_load -p "$SINGLE" -- "$SINGLE")"
  keep_best "load, one redis-server" "$(timed_load -p "$REDIS" -- "$REDIS")"
done
base=${best["-c load, Redis cluster"]}
printf "%-24s %9s %12s %14s\n" case seconds keys/s "vs Redis cluster"
for k in "-c load, rbkv cluster" "-c load, Redis cluster" "load, one rbkv" "load, one redis-server"; do
  printf "%-24s %9s %12.0f %14s\n" "$k" "${best[$k]}" "$(awk -v n="$KEYS" -v s="${best[$k]}" \
    'BEGIN { print n / s }')" "$(ratio "$base" "${best[$k]}")"
done
