#!/usr/bin/env bash
# Snapshot save and load time of rbkv-server against Debian's redis-server.
#   bench/snapshot_vs_redis.sh           1,000,000 keys
#   bench/snapshot_vs_redis.sh --10m     10,000,000 keys (needs a few GB of RAM)
# Each server gets its own temp dir, is filled with redis-cli --pipe (16-byte
# keys and values, as server_vs_redis.sh), then timed: SAVE as the client
# sees it, and a restart on the file until the server answers PING (both load
# before they serve). Reported with each snapshot's size, and as the ratio
# redis time / rbkv time (above 1.0: rbkv is faster), as the other benchmarks'
# rbkv/redis throughput ratios.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
KEYS=1000000
[ "${1:-}" = --10m ] && KEYS=10000000
ensure_built

WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

gen() {
  awk -v n="$KEYS" 'BEGIN { for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$16\r\nvalue:%010d\r\n", i, i }'
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# launch NAME PORT: starts the server on its dir in the background.
launch() {
  if [ "$1" = rbkv ]; then
    "$RBKV_BIN" --port "$2" --dir "$WORK/rbkv" --loglevel warning >/dev/null &
  else
    redis-server --port "$2" --dir "$WORK/redis" --save '' --appendonly no \
      --loglevel warning >/dev/null &
  fi
  BENCH_PIDS+=($!)
}

wait_pong() {
  until [ "$(redis-cli -p "$1" ping 2>/dev/null)" = PONG ]; do sleep 0.01; done
}

printf '%-7s %10s %10s %12s\n' server "save s" "load s" "file bytes"
declare -A save load
for name in rbkv redis; do
  mkdir -p "$WORK/$name"
  file=$WORK/$name/dump.rbkv; [ $name = redis ] && file=$WORK/$name/dump.rdb
  port=$(free_port); launch $name "$port"; wait_ping "$port"
  gen | pipe_load "$port"
  t0=$(now); redis-cli -p "$port" save >/dev/null; t1=$(now)
  save[$name]=$(elapsed "$t0" "$t1")
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  wait "${BENCH_PIDS[-1]}" 2>/dev/null || true
  port=$(free_port); t0=$(now); launch $name "$port"; wait_pong "$port"; t1=$(now)
  load[$name]=$(elapsed "$t0" "$t1")
  n=$(redis-cli -p "$port" dbsize)
  [ "$n" = "$KEYS" ] || { echo "$name loaded $n keys, expected $KEYS" >&2; exit 1; }
  printf '%-7s %10s %10s %12s\n' $name "${save[$name]}" "${load[$name]}" "$(stat -c %s "$file")"
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
done
printf '%-7s %10s %10s\n' speedup "$(ratio "${save[redis]}" "${save[rbkv]}")" \
  "$(ratio "${load[redis]}" "${load[rbkv]}")"
