#!/usr/bin/env bash
# SET throughput with the append-only log on, rbkv-server against Debian's redis-server, in one run.
#   bench/aof_vs_redis.sh [requests [runs]]   (default 200000 requests per test, 1 run)
# For each fsync policy (everysec, always) both servers start in their own temp dir with
# `--appendonly yes --appendfsync POLICY`, and redis-benchmark runs SET with 50 clients, -P 1 and
# -P 16, random keys from a space of 1,000,000 and 16-byte values; the servers alternate. With
# several runs each test is repeated, alternating, on the same two servers (their logs keep
# growing, so automatic rewrites happen in both), and a last line per test gives the mean of the
# runs and the ratio of the means.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=${1:-200000}
RUNS=${2:-1}
ensure_built

WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

ops() { # PORT PIPELINE
  redis-benchmark -p "$1" -t set -c 50 -P "$2" -r 1000000 -d 16 -n "$N" -q --csv |
    csv_rps
}

printf '%-22s %14s %14s %8s\n' test "rbkv ops/s" "redis ops/s" ratio
for policy in everysec always; do
  mkdir -p "$WORK/$policy/rbkv" "$WORK/$policy/redis"
  RBKV_PORT=$(free_port)
  start_rbkv "$RBKV_PORT" --dir "$WORK/$policy/rbkv" --appendonly yes --appendfsync "$policy"
  REDIS_PORT=$(free_port)
  start_redis "$REDIS_PORT" --dir "$WORK/$policy/redis" --appendonly yes --appendfsync "$policy"
  for p in 1 16; do
    rsum=0; ssum=0
    for run in $(seq "$RUNS"); do
      r=$(ops "$RBKV_PORT" "$p"); s=$(ops "$REDIS_PORT" "$p")
      name="set $policy -P $p"; [ "$RUNS" -gt 1 ] && name="$name #$run"
      printf '%-22s %14s %14s %8s\n' "$name" "$r" "$s" "$(ratio "$r" "$s")"
      rsum=$(awk -v a="$rsum" -v b="$r" 'BEGIN { print a + b }')
      ssum=$(awk -v a="$ssum" -v b="$s" 'BEGIN { print a + b }')
    done
    [ "$RUNS" -gt 1 ] && printf '%-22s %14s %14s %8s\n' "set $policy -P $p all" \
      "$(awk -v a="$rsum" -v n="$RUNS" 'BEGIN { printf "%.0f", a / n }')" \
      "$(awk -v a="$ssum" -v n="$RUNS" 'BEGIN { printf "%.0f", a / n }')" "$(ratio "$rsum" "$ssum")"
  done
  bench_cleanup; BENCH_PIDS=()
done
