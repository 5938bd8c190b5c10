#!/usr/bin/env bash
# Throughput and memory of rbkv-server against Debian's redis-server, in one run.
#   bench/server_vs_redis.sh [requests]      (default 1000000 requests per test; 0: memory only)
# SET and GET through redis-benchmark, 50 clients, pipelines of 1 and 16,
# random keys from a space of 1,000,000 and 16-byte values; the two servers
# alternate for each test so drift on a noisy machine hits both. Then 1,000,000
# keys (MEMORY_KEYS) of two shapes are loaded into fresh servers with redis-cli --pipe
# and bytes per key are reported from used_memory and RSS.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=${1:-1000000}
ensure_built

RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"

ops() { # PORT TEST PIPELINE
  redis-benchmark -p "$1" -t "$2" -c 50 -P "$3" -r 1000000 -d 16 -n "$N" -q --csv | csv_rps
}

if [ "$N" != 0 ]; then
  printf '%-12s %14s %14s %8s\n' test "rbkv ops/s" "redis ops/s" ratio
  for p in 1 16; do
    for t in set get; do
      r=$(ops "$RBKV_PORT" "$t" "$p"); s=$(ops "$REDIS_PORT" "$t" "$p")
      printf '%-12s %14s %14s %8s\n' "$t -P $p" "$r" "$s" "$(ratio "$r" "$s")"
    done
  done
fi

# Memory on fresh servers: after the throughput runs, freed memory would stay
# in each process's RSS and hide the cost of the new keys. Two key shapes, both
# with 16-byte values: key:%08d (12 bytes: issue #20's measure, where an entry
# is one 64-byte block) and key:%012d (16 bytes, as redis-benchmark -r makes
# them: an 80-byte block). MEMORY_KEYS="1000000 10000000" adds 10M keys (about
# 2 GB in all and a minute of loading per server).
# gen COUNT FORMAT: SET commands for redis-cli --pipe.
gen() {
  awk -v n="$1" -v f="$2" 'BEGIN { for (i = 0; i < n; i++) { k = sprintf(f, i)
    printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$16\r\nvalue:%010d\r\n", length(k), k, i } }'
}
# MEMORY_KEYS=0: throughput only.
[ "${MEMORY_KEYS:-1000000}" = 0 ] && exit 0
[ "$N" = 0 ] || echo
echo "tree at $(git -C "$ROOT" rev-parse --short HEAD), $(date -u '+%F %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %-11s %-8s %14s %14s\n' keys format server "used_mem B/key" "rss B/key"
for keys in ${MEMORY_KEYS:-1000000}; do
  for fmt in key:%08d key:%012d; do
    declare -A used rss
    for name in rbkv redis; do
      bench_cleanup; BENCH_PIDS=()
      port=$(free_port)
      if [ $name = rbkv ]; then start_rbkv "$port"; else start_redis "$port"; fi
      u0=$(info_field "$port" used_memory); r0=$(info_field "$port" used_memory_rss)
      gen "$keys" "$fmt" | pipe_load "$port"
      u1=$(info_field "$port" used_memory); r1=$(info_field "$port" used_memory_rss)
      used[$name]=$(( (u1 - u0) / keys )); rss[$name]=$(( (r1 - r0) / keys ))
      printf '%-9s %-11s %-8s %14s %14s\n' "$keys" "$fmt" "$name" "${used[$name]}" "${rss[$name]}"
    done
    printf '%-9s %-11s %-8s %14s %14s\n' "$keys" "$fmt" ratio "$(ratio "${used[rbkv]}" "${used[redis]}")" \
      "$(ratio "${rss[rbkv]}" "${rss[redis]}")"
  done
done
