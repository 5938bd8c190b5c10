#!/usr/bin/env bash
# Throughput and memory of rbkv-server against Debian's redis-server, in one run.
#   bench/server_vs_redis.sh [requests]      (default 1000000 requests per test)
# SET and GET through redis-benchmark, 50 clients, pipelines of 1 and 16,
# random keys from a space of 1,000,000 and 16-byte values; the two servers
# alternate for each test so drift on a noisy machine hits both. Then 1,000,000
# keys are loaded into two fresh servers with redis-cli --pipe and bytes per key are
# reported from used_memory and RSS.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=${1:-1000000}
ensure_built

RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"

ops() { # PORT TEST PIPELINE
  redis-benchmark -p "$1" -t "$2" -c 50 -P "$3" -r 1000000 -d 16 -n "$N" -q --csv |
    awk -F, 'NR > 1 { gsub(/"/, "", $2); print $2; exit }'
}

printf '%-12s %14s %14s %8s\n' test "rbkv ops/s" "redis ops/s" ratio
for p in 1 16; do
  for t in set get; do
    r=$(ops "$RBKV_PORT" "$t" "$p"); s=$(ops "$REDIS_PORT" "$t" "$p")
    printf '%-12s %14s %14s %8s\n' "$t -P $p" "$r" "$s" "$(ratio "$r" "$s")"
  done
done

# Memory on fresh servers: after the throughput runs, freed memory would stay
# in each process's RSS and hide the cost of the new keys.
bench_cleanup; BENCH_PIDS=()
RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"
KEYS=1000000
# Keys as redis-benchmark -r makes them (16 bytes), 16-byte values.
gen() {
  awk -v n="$KEYS" 'BEGIN { for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$16\r\nvalue:%010d\r\n", i, i }'
}
echo
printf '%-8s %14s %14s\n' server "used_mem B/key" "rss B/key"
declare -A used rss
for name in rbkv redis; do
  port=$RBKV_PORT; [ $name = redis ] && port=$REDIS_PORT
  u0=$(info_field "$port" used_memory); r0=$(info_field "$port" used_memory_rss)
  gen | redis-cli -p "$port" --pipe >/dev/null
  u1=$(info_field "$port" used_memory); r1=$(info_field "$port" used_memory_rss)
  used[$name]=$(( (u1 - u0) / KEYS )); rss[$name]=$(( (r1 - r0) / KEYS ))
  printf '%-8s %14s %14s\n' "$name" "${used[$name]}" "${rss[$name]}"
done
printf '%-8s %14s %14s\n' ratio "$(ratio "${used[rbkv]}" "${used[redis]}")" "$(ratio "${rss[rbkv]}" "${rss[redis]}")"
