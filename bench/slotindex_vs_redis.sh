#!/usr/bin/env bash
# Memory per key in cluster mode: rbkv's keyspace with the per-slot key index (server/data/
# slotindex.h) on and off, against redis-server 7.0 with and without --cluster-enabled yes.
#   bench/slotindex_vs_redis.sh                     (KEYS=1000000, FORMATS="key:%08d key:%012d")
# Each row: used memory grown by loading KEYS string keys (16-byte values), divided by KEYS.
# The headline is the two servers in cluster mode, each a single node owning every slot
# (CLUSTER ADDSLOTSRANGE 0 16383), loaded by redis-cli --pipe: rbkv-server and redis-server with
# --cluster-enabled yes, and their ratio (the issue's goal: <= 0.75). Beside them: both servers
# outside cluster mode, and rbkv's keyspace in a program, build/bench/slotindex_mem (through the
# allocator the server links), with the per-slot key index on and off, which isolates what the
# index itself costs (written when the server could not yet start in cluster mode).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
KEYS=${KEYS:-1000000}
FORMATS=${FORMATS:-"key:%08d key:%012d"}
MEM_BIN=${MEM_BIN:-$ROOT/build/bench/slotindex_mem}
WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

gen() { # COUNT FORMAT: SET commands for redis-cli --pipe
  awk -v n="$1" -v f="$2" 'BEGIN { for (i = 0; i < n; i++) { k = sprintf(f, i)
    printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$16\r\nvalue:%010d\r\n", length(k), k, i } }'
}

# server_per_key START_FN [flags...]: sets PER_KEY to the used_memory per key of a fresh server
# loaded with KEYS keys (not a $(...): the server would be started in, and outlive, a subshell).
server_per_key() {
  local start=$1 port; shift
  bench_cleanup; BENCH_PIDS=()
  port=$(free_port)
  "$start" "$port" "$@"
  if [[ " $* " == *" --cluster-enabled yes "* ]]; then
    redis-cli -p "$port" cluster addslotsrange 0 16383 >/dev/null
    for _ in $(seq 100); do
      [ "$(redis-cli -p "$port" cluster info | tr -d '\r' | awk -F: '$1 == "cluster_state" { print $2 }')" = ok ] && break
      sleep 0.1
    done
  fi
  local u0 u1
  u0=$(info_field "$port" used_memory)
  gen "$KEYS" "$fmt" | pipe_load "$port"
  u1=$(info_field "$port" used_memory)
  PER_KEY=$(awk -v a="$u0" -v b="$u1" -v n="$KEYS" 'BEGIN { printf "%.1f", (b - a) / n }')
}

printf '%-11s %-28s %10s\n' format what "used B/key"
for fmt in $FORMATS; do
  off=$("$MEM_BIN" "$KEYS" off "$fmt" | awk '{ print $6 }')
  on_line=$("$MEM_BIN" "$KEYS" on "$fmt")
  on=$(echo "$on_line" | awk '{ print $6 }'); idx=$(echo "$on_line" | awk '{ print $8 }')
  server_per_key start_rbkv; rbkv_server=$PER_KEY
  server_per_key start_rbkv --dir "$WORK" --cluster-enabled yes --cluster-config-file "nodes-$RANDOM.conf"
  rbkv_cluster=$PER_KEY
  server_per_key start_redis; redis=$PER_KEY
  server_per_key start_redis --dir "$WORK" --cluster-enabled yes --cluster-config-file "nodes-$RANDOM.conf"
  redis_cluster=$PER_KEY
  printf '%-11s %-28s %10s\n' "$fmt" "rbkv keyspace, index off" "$off" "$fmt" "rbkv keyspace, index on" \
    "$on" "$fmt" "  of which the index" "$idx" "$fmt" "rbkv-server (not cluster)" "$rbkv_server" \
    "$fmt" "rbkv-server cluster-enabled" "$rbkv_cluster" \
    "$fmt" "redis-server" "$redis" "$fmt" "redis-server cluster-enabled" "$redis_cluster"
  printf '%-11s %-28s %10s\n' "$fmt" "ratio servers, cluster mode" "$(ratio "$rbkv_cluster" "$redis_cluster")" \
    "$fmt" "ratio on / redis cluster" "$(ratio "$on" "$redis_cluster")" \
    "$fmt" "ratio servers, not cluster" "$(ratio "$rbkv_server" "$redis")"
done
