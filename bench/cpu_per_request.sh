#!/usr/bin/env bash
# Server CPU per request, rbkv-server against Debian's redis-server: the figure of issue 38, which
# the machine's load skews less than ops/s.
#   bench/cpu_per_request.sh [--rounds N] [--quick] [--requests N]
#   WORKLOADS="count rank" RBKV_BIN=/tmp/before/rbkv-server bench/cpu_per_request.sh
# Both servers hold the same 100,000 keys key:%012d (16-byte values) and, as members with score 0
# of the sorted set zkeys, the same strings. For each workload redis-benchmark sends REQUESTS
# requests (default 2,000,000) from 50 clients with pipelines of 16 and random keys of the 100,000
# (-r 100000), and the server's user+system time over the run is read from /proc/PID/stat (clock
# ticks of 10 ms). The two servers alternate, ROUNDS times (default 3); a row gives each server's
# ticks per 2M requests as the range over the rounds, and the ratio redis / rbkv of the medians
# (above 1: rbkv spends less). Workloads (rbkv | redis-server):
#   PING      PING_MBULK (the I/O and protocol floor)
#   SET, GET  SET / GET key:R (16-byte values)
#   range100  KRANGE [key:R + BYLEX LIMIT 0 100 | ZRANGEBYLEX zkeys [key:R + LIMIT 0 100
#   count     KCOUNT [key:R + | ZLEXCOUNT zkeys [key:R +
#   rank      KRANK key:R | ZRANK zkeys key:R
# --quick: 200,000 requests, one round.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$BENCH_DIR/lib.sh"

ROUNDS=3 REQUESTS=2000000 KEYS=100000
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --requests) REQUESTS=$2; shift 2 ;;
    --quick) ROUNDS=1 REQUESTS=200000; shift ;;
    *) echo "usage: $0 [--rounds N] [--quick] [--requests N]" >&2; exit 2 ;;
  esac
done
command -v redis-benchmark >/dev/null || { echo "no redis-benchmark on PATH" >&2; exit 1; }
[ -x "$RBKV_BIN" ] || ensure_built

RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT" --save ''; RBKV_PID=${BENCH_PIDS[-1]}
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"; REDIS_PID=${BENCH_PIDS[-1]}
for port in "$RBKV_PORT" "$REDIS_PORT"; do
  load "$port" gen_set 0 "$KEYS"
  load "$port" gen_zadd 0 "$KEYS"
done

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; } # PID: utime + stime
# run PORT PID ARGS...: the server's ticks over one redis-benchmark run; fails on any error reply.
run() {
  local port=$1 pid=$2 before out; shift 2
  before=$(ticks "$pid")
  out=$(redis-benchmark -p "$port" -c 50 -P 16 -r "$KEYS" -n "$REQUESTS" -d 16 -q "$@" 2>&1)
  if grep -qiE 'error|ERR ' <<<"$out"; then echo "redis-benchmark $* on $port: $out" >&2; exit 1; fi
  echo $(( $(ticks "$pid") - before ))
}
workload() { # NAME: sets RB and RD to the two servers' redis-benchmark arguments
  case $1 in
    PING) RB=(-t ping_mbulk) RD=(-t ping_mbulk) ;;
    SET) RB=(-t set) RD=(-t set) ;;
    GET) RB=(-t get) RD=(-t get) ;;
    range100) RB=(KRANGE '[key:__rand_int__' + BYLEX LIMIT 0 100)
              RD=(ZRANGEBYLEX zkeys '[key:__rand_int__' + LIMIT 0 100) ;;
    count) RB=(KCOUNT '[key:__rand_int__' +) RD=(ZLEXCOUNT zkeys '[key:__rand_int__' +) ;;
    rank) RB=(KRANK key:__rand_int__) RD=(ZRANK zkeys key:__rand_int__) ;;
    *) echo "unknown workload $1" >&2; exit 2 ;;
  esac
}
# SET's random keys are the loaded ones (-r KEYS, key:__rand_int__ by redis-benchmark's -t set),
# so no run grows the data the next one reads.
WORKLOADS=${WORKLOADS:-"PING SET GET range100 count rank"}
declare -A got
for round in $(seq "$ROUNDS"); do
  for w in $WORKLOADS; do
    workload "$w"
    got[$w.rbkv]+=" $(run "$RBKV_PORT" "$RBKV_PID" "${RB[@]}")"
    got[$w.redis]+=" $(run "$REDIS_PORT" "$REDIS_PID" "${RD[@]}")"
  done
  echo "round $round done" >&2
done

# per2m "T1 T2 ...": each scaled to 2M requests, sorted; then range and median.
stats() {
  tr ' ' '\n' <<<"$1" | awk -v s="$((2000000))" -v n="$REQUESTS" 'NF { print $1 * s / n }' | sort -n |
    awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%s %.0f\n", (NR > 1 ? sprintf("%.0f-%.0f", v[1], v[NR]) : sprintf("%.0f", v[1])), m }'
}
echo "server ticks (10 ms) per 2M requests, -P 16, 50 clients, $KEYS keys, $ROUNDS rounds of $REQUESTS requests:"
printf '%-10s %12s %12s %8s\n' workload rbkv redis ratio
for w in $WORKLOADS; do
  read -r rr rm <<<"$(stats "${got[$w.rbkv]}")"
  read -r dr dm <<<"$(stats "${got[$w.redis]}")"
  printf '%-10s %12s %12s %8s\n' "$w" "$rr" "$dr" "$(ratio "$dm" "$rm")"
done
