#!/usr/bin/env bash
# Instructions per request of one or more rbkv-server binaries, by callgrind: what ops/s on a noisy
# 2-core machine cannot settle (a change's cost on the hot path, before against after).
#   bench/callgrind_per_request.sh [BINARY...]     (default: build/server/rbkv-server)
#   N1=2000 N2=6000 CLIENTS=10 WORKLOADS="get set" bench/callgrind_per_request.sh old new
# For each workload and binary the server runs twice under valgrind --tool=callgrind, each time
# started empty, loaded the same way, then sent N1 (then N2) requests by redis-benchmark; the
# difference of the two runs' instruction totals over N2 - N1 is the cost of one request, with
# start-up, loading and shutdown cancelled out. Workloads:
#   ping      PING (the I/O and protocol floor), -P 1
#   ping-p16  PING, pipelines of 16
#   get       GET of 1,000 keys (16-byte values), -P 1
#   set       SET of 1,000 keys, -P 1
#   get-p16   GET, pipelines of 16
#   set-p16   SET, pipelines of 16
#   evalsha   EVALSHA of "return redis.call('GET', KEYS[1])" on those keys
#   repl-set  SET on a primary with one replica attached (the replica runs natively); the primary's
#             instructions, so the replication feed is counted
#   krange    KRANGE '[key:<rand>' + BYLEX LIMIT 0 100 over 10,000 keys
# Prints one row per workload, one column per binary. Takes a few minutes per binary.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N1=${N1:-2000}
N2=${N2:-6000}
CLIENTS=${CLIENTS:-10}
WORKLOADS=${WORKLOADS:-"ping get set ping-p16 get-p16 set-p16 evalsha repl-set krange"}
[ $# -gt 0 ] || set -- "$RBKV_BIN"
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

# load PORT COUNT: COUNT keys key:000000000001... with 16-byte values, through redis-cli --pipe.
load() {
  awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) { k = sprintf("key:%012d", i)
    printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$16\r\nvalue:%010d\r\n", length(k), k, i } }' |
    redis-cli -p "$1" --pipe >/dev/null
}

# redis-benchmark may spin for ever once its server is gone (seen: 13 CPU minutes after a callgrind
# server ended), so each run is bounded, and a bound reached fails the whole measurement.
bench() { # PORT N ARGS...
  local port=$1 n=$2; shift 2
  timeout "${BENCH_TIMEOUT:-900}" redis-benchmark -p "$port" -c "$CLIENTS" -n "$n" -r 1000 -q "$@" \
    >/dev/null || { echo "redis-benchmark $* on port $port failed or took too long" >&2; exit 1; }
}

# one BINARY WORKLOAD N: the instruction total of one callgrind run.
one() {
  local bin=$1 w=$2 n=$3 dir port out rport=""
  dir=$(mktemp -d "$WORK/run.XXXX")
  port=$(free_port)
  out=$dir/callgrind.out
  (cd "$dir" && exec valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --port "$port" \
    --save '' --appendonly no --loglevel warning >/dev/null 2>"$dir/valgrind.log") &
  local pid=$!
  local up=""
  for _ in $(seq 600); do
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && up=1 && break
    sleep 0.1
  done
  [ -n "$up" ] || { echo "$bin under callgrind did not answer in 60 s: $(cat "$dir/valgrind.log")" >&2; exit 1; }
  case $w in
    krange) load "$port" 10000 ;;
    *) load "$port" 1000 ;;
  esac
  case $w in
    ping) bench "$port" "$n" -t ping_mbulk ;;
    ping-p16) bench "$port" "$n" -t ping_mbulk -P 16 ;;
    get) bench "$port" "$n" -t get ;;
    set) bench "$port" "$n" -t set -d 16 ;;
    get-p16) bench "$port" "$n" -t get -P 16 ;;
    set-p16) bench "$port" "$n" -t set -d 16 -P 16 ;;
    evalsha)
      local sha
      sha=$(redis-cli -p "$port" SCRIPT LOAD "return redis.call('GET', KEYS[1])")
      bench "$port" "$n" EVALSHA "$sha" 1 "key:__rand_int__" ;;
    repl-set)
      rport=$(free_port)
      mkdir "$dir/replica"
      (cd "$dir/replica" && exec "$bin" --port "$rport" --save '' --appendonly no \
        --loglevel warning --replicaof 127.0.0.1 "$port" >/dev/null 2>&1) &
      local rpid=$!
      for _ in $(seq 600); do
        redis-cli -p "$rport" INFO replication 2>/dev/null | grep -q 'master_link_status:up' && break
        sleep 0.1
      done
      bench "$port" "$n" -t set -d 16
      kill "$rpid"; wait "$rpid" 2>/dev/null || true ;;
    krange) bench "$port" "$n" KRANGE '[key:__rand_int__' + BYLEX LIMIT 0 100 ;;
    *) echo "unknown workload $w" >&2; exit 1 ;;
  esac
  redis-cli -p "$port" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
  wait "$pid" 2>/dev/null || true
  awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

printf '%-10s' workload
for b in "$@"; do printf ' %22s' "$(basename "$(dirname "$(readlink -f "$b")")")/$(basename "$b")"; done
printf '\n'
for w in $WORKLOADS; do
  printf '%-10s' "$w"
  for b in "$@"; do
    a=$(one "$b" "$w" "$N1"); c=$(one "$b" "$w" "$N2")
    printf ' %22s' "$(awk -v a="$a" -v c="$c" -v d=$((N2 - N1)) 'BEGIN { printf "%.0f", (c - a) / d }')"
  done
  printf '\n'
done
