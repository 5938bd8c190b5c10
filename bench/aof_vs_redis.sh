#!/usr/bin/env bash
# SET throughput with the append-only log on, rbkv-server against Debian's redis-server, in one run.
#   bench/aof_vs_redis.sh [requests]      (default 200000 requests per test)
# For each fsync policy (everysec, always) both servers start in their own temp dir with
# `--appendonly yes --appendfsync POLICY`, and redis-benchmark runs SET with 50 clients, -P 1 and
# -P 16, random keys from a space of 1,000,000 and 16-byte values; the servers alternate.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=${1:-200000}
ensure_built

WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

ops() { # PORT PIPELINE
  redis-benchmark -p "$1" -t set -c 50 -P "$2" -r 1000000 -d 16 -n "$N" -q --csv |
    awk -F, 'NR > 1 { gsub(/"/, "", $2); print $2; exit }'
}

printf '%-22s %14s %14s %8s\n' test "rbkv ops/s" "redis ops/s" ratio
for policy in everysec always; do
  mkdir -p "$WORK/$policy/rbkv" "$WORK/$policy/redis"
  RBKV_PORT=$(free_port)
  start_rbkv "$RBKV_PORT" --dir "$WORK/$policy/rbkv" --appendonly yes --appendfsync "$policy"
  REDIS_PORT=$(free_port)
  start_redis "$REDIS_PORT" --dir "$WORK/$policy/redis" --appendonly yes --appendfsync "$policy"
  for p in 1 16; do
    r=$(ops "$RBKV_PORT" "$p"); s=$(ops "$REDIS_PORT" "$p")
    printf '%-22s %14s %14s %8s\n' "set $policy -P $p" "$r" "$s" "$(ratio "$r" "$s")"
  done
  bench_cleanup; BENCH_PIDS=()
done
