#!/usr/bin/env bash
# The cost of a write under client-side caching's BCAST mode, against Debian's redis-server 7.
#   bench/tracking_vs_redis.sh [--rounds N] [--quick]
#
# One RESP3 client registers 1,000 BCAST prefixes (CLIENT TRACKING on BCAST PREFIX ... x1000)
# and reads its invalidations away; redis-benchmark (200,000 requests, 50 clients, -P 16) then
# runs SET on both servers, alternating for --rounds rounds (default 3), the best of each kept:
#   none      no tracking client: the baseline
#   miss      1,000 prefixes "a000:".."a999:", which no written key "key:<12 digits>" starts
#   hit       1,000 prefixes "key:0000000000".."key:0000000999": every key written falls under
#             one of them, so each loop turn sends the client that prefix's keys
# Printed per test and server: requests per second and the server's CPU time per request (user
# plus system, from /proc/PID/stat, over all the rounds), and the ratios rbkv / redis (ops/s:
# above 1 is rbkv faster; CPU: below 1 is rbkv cheaper).
# Redis tests every registered prefix against every written key; rbkv finds the prefixes of a
# key from its predecessor in a tree of the prefixes (server/core/tracking.c).
# --quick: one round with a tenth of the requests, for a smoke run.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

rounds_args "$@"
ensure_built

N=$((200000 / SCALE))
rps() { # PORT
  redis-benchmark -p "$1" -n "$N" -c 50 -P 16 -r 100000 --csv SET key:__rand_int__ v |
    csv_rps
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# CLIENT TRACKING on BCAST with 1000 prefixes: "<head><i>" for i in 000..999.
tracking_request() { # HEAD
  awk -v head="$1" 'BEGIN {
    printf "*%d\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$2\r\non\r\n$5\r\nBCAST\r\n", 4 + 2000
    for (i = 0; i < 1000; i++) { p = sprintf("%s%03d", head, i)
      printf "$6\r\nPREFIX\r\n$%d\r\n%s\r\n", length(p), p } }'
}

RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"; RBKV_PID=${BENCH_PIDS[-1]}
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"; REDIS_PID=${BENCH_PIDS[-1]}
HZ=$(getconf CLK_TCK)

# Opens a tracking connection on fd 3 (rbkv) or 4 (redis) and drains it in the background.
track() { # FD PORT HEAD
  local fd=$1 port=$2 head=$3
  eval "exec $fd<>/dev/tcp/127.0.0.1/$port"
  { printf 'HELLO 3\r\n'; tracking_request "$head"; } >&"$fd"
  cat <&"$fd" >/dev/null &
  BENCH_PIDS+=($!)
  DRAIN[$fd]=$!
  for _ in $(seq 100); do
    [ "$(redis-cli -p "$port" info stats | tr -d '\r' | awk -F: '$1 == "tracking_total_prefixes" { print $2 }')" = 1000 ] &&
      return 0
    sleep 0.1
  done
  echo "the prefixes did not register on port $port" >&2
  exit 1
}
DRAIN=()
untrack() { # FD: closes both holders of the connection, the shell and its reader
  eval "exec $1>&-"
  kill "${DRAIN[$1]}" 2>/dev/null || true
}

printf '%-6s | %10s %10s %6s | %12s %12s %6s\n' "" "rbkv op/s" "redis op/s" ratio \
  "rbkv us/req" "redis us/req" ratio
for test in none miss hit; do
  case $test in
    miss) track 3 "$RBKV_PORT" a; track 4 "$REDIS_PORT" a ;;
    hit) track 3 "$RBKV_PORT" key:0000000; track 4 "$REDIS_PORT" key:0000000 ;;
  esac
  r=0; s=0; rt=0; st=0
  for _ in $(seq "$ROUNDS"); do
    t0=$(cpu_ticks "$RBKV_PID"); r=$(best "$r" "$(rps "$RBKV_PORT")"); rt=$((rt + $(cpu_ticks "$RBKV_PID") - t0))
    t0=$(cpu_ticks "$REDIS_PID"); s=$(best "$s" "$(rps "$REDIS_PORT")"); st=$((st + $(cpu_ticks "$REDIS_PID") - t0))
  done
  ru=$(awk -v t="$rt" -v hz="$HZ" -v n="$((N * ROUNDS))" 'BEGIN { printf "%.3f", t / hz * 1e6 / n }')
  su=$(awk -v t="$st" -v hz="$HZ" -v n="$((N * ROUNDS))" 'BEGIN { printf "%.3f", t / hz * 1e6 / n }')
  printf '%-6s | %10.0f %10.0f %6s | %12s %12s %6s\n' "$test" "$r" "$s" "$(ratio "$r" "$s")" \
    "$ru" "$su" "$(ratio "$ru" "$su")"
  case $test in
    miss|hit) untrack 3; untrack 4
      # Both servers drop the closed client's prefixes before the next test.
      for port in "$RBKV_PORT" "$REDIS_PORT"; do
        for _ in $(seq 100); do
          [ "$(redis-cli -p "$port" info stats | tr -d '\r' | awk -F: '$1 == "tracking_total_prefixes" { print $2 }')" = 0 ] && break
          sleep 0.1
        done
      done ;;
  esac
done
