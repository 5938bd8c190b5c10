#!/usr/bin/env bash
# Lists and scripts against Debian's redis-server 7, in one run.
#   bench/list_vs_redis.sh [--rounds N] [--quick]
#
# Part 1, throughput: redis-benchmark (50 clients, -P 1 and -P 16) runs each test on both
# servers, alternating for --rounds rounds (default 3); the best of each is kept and the ratio is
# rbkv / redis:
#   LPUSH l:R xxx, RPOP l:R             over 1,000 lists (__rand_int__)
#   LRANGE list 0 99                    a 1,000-element list
#   LINDEX big 500000, LSET big 500000  the middle of a 1,000,000-element list
#   EVALSHA of `return redis.call('GET', KEYS[1])` on key:R, of one INCR, and of three calls
# Part 2, BLPOP hand-off: bench/handoff (handoff.c) plays ping-pong between two clients blocked
# in turn on two lists; hand-offs per second and the latency of a round (two hand-offs).
# Part 3, memory (used_memory growth, fresh servers): one list of 10,000,000 elements, as
# redis-benchmark's 3-byte "xxx" and as decimal integers 0..N-1.
# --quick: one round, 1,000,000 elements in part 3, for a smoke run.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ROUNDS=3
ELEMENTS=10000000
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --quick) ROUNDS=1; ELEMENTS=1000000; shift ;;
    *) echo "usage: $0 [--rounds N] [--quick]" >&2; exit 2 ;;
  esac
done
ensure_built
HANDOFF=$ROOT/build/bench/handoff

rps() { # PORT REQUESTS PIPELINE COMMAND...
  local port=$1 n=$2 pipeline=$3; shift 3
  redis-benchmark -p "$port" -n "$n" -c 50 -P "$pipeline" -r 1000 --csv "$@" |
    csv_rps
}
load() { # PORT GENERATOR ARGS...
  local port=$1; shift
  "$@" | redis-cli -p "$port" --pipe | grep -q "errors: 0" || { echo "loading into $port failed" >&2; exit 1; }
}
# RPUSH KEY of N elements, 1000 per command: "xxx" (kind xxx) or the integers 0..N-1 (kind int).
gen_list() { # KEY N KIND
  awk -v key="$1" -v n="$2" -v kind="$3" 'BEGIN { for (i = 0; i < n; i += 1000) {
      m = (n - i < 1000) ? n - i : 1000
      printf "*%d\r\n$5\r\nRPUSH\r\n$%d\r\n%s\r\n", m + 2, length(key), key
      for (j = i; j < i + m; j++)
        if (kind == "int") printf "$%d\r\n%d\r\n", length(j ""), j
        else printf "$3\r\nxxx\r\n" } }'
}

echo "== Part 1: throughput, best of $ROUNDS rounds (50 clients)"
RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"
GET_SCRIPT="return redis.call('GET', KEYS[1])"
INCR_SCRIPT="return redis.call('INCR', KEYS[1])"
THREE_SCRIPT="redis.call('SET', KEYS[1], ARGV[1]); redis.call('INCR', KEYS[2]); return redis.call('GET', KEYS[1])"
for port in "$RBKV_PORT" "$REDIS_PORT"; do
  load "$port" gen_list list 1000 xxx
  load "$port" gen_list big 1000000 xxx
  redis-cli -p "$port" set key:1 v >/dev/null
  GET_SHA=$(redis-cli -p "$port" script load "$GET_SCRIPT")
  INCR_SHA=$(redis-cli -p "$port" script load "$INCR_SCRIPT")
  THREE_SHA=$(redis-cli -p "$port" script load "$THREE_SCRIPT")
done
# name|requests
TESTS=(
  "LPUSH l:__rand_int__ xxx|500000"
  "RPOP l:__rand_int__|500000"
  "LRANGE list 0 99|200000"
  "LINDEX big 500000|100000"
  "LSET big 500000 yyy|100000"
  "EVALSHA $GET_SHA 1 key:__rand_int__|300000"
  "EVALSHA $INCR_SHA 1 n:__rand_int__|300000"
  "EVALSHA $THREE_SHA 2 s:__rand_int__ n:__rand_int__ v|300000"
)
printf '%-34s | %10s %10s %6s | %10s %10s %6s\n' "" "rbkv -P1" "redis -P1" ratio \
  "rbkv -P16" "redis -P16" ratio
for t in "${TESTS[@]}"; do
  IFS='|' read -r cmd n <<<"$t"
  label=${cmd/$GET_SHA/<get>}; label=${label/$INCR_SHA/<incr>}; label=${label/$THREE_SHA/<3 calls>}
  line=$(printf '%-34s' "${label:0:34}")
  for p in 1 16; do
    m=$n; [ "$p" = 1 ] && m=$((n / 4))
    r=0; s=0
    for _ in $(seq "$ROUNDS"); do
      # shellcheck disable=SC2086 # the command is a word list on purpose
      r=$(best "$r" "$(rps "$RBKV_PORT" "$m" "$p" $cmd)")
      # shellcheck disable=SC2086
      s=$(best "$s" "$(rps "$REDIS_PORT" "$m" "$p" $cmd)")
    done
    line+=$(printf ' | %10.0f %10.0f %6s' "$r" "$s" "$(ratio "$r" "$s")")
  done
  echo "$line"
done

echo
echo "== Part 2: BLPOP hand-off (two clients, ping-pong through two lists)"
for _ in $(seq "$ROUNDS"); do
  printf 'rbkv  %s\n' "$("$HANDOFF" -p "$RBKV_PORT" -n 20000)"
  printf 'redis %s\n' "$("$HANDOFF" -p "$REDIS_PORT" -n 20000)"
done
bench_cleanup; BENCH_PIDS=()

echo
echo "== Part 3: memory, one list of $ELEMENTS elements (used_memory growth; ratio rbkv / redis)"
for kind in xxx int; do
  BENCH_PIDS=()
  rp=$(free_port); start_rbkv "$rp"
  zp=$(free_port); start_redis "$zp"
  ru0=$(info_field "$rp" used_memory); zu0=$(info_field "$zp" used_memory)
  load "$rp" gen_list l "$ELEMENTS" "$kind"; load "$zp" gen_list l "$ELEMENTS" "$kind"
  ru1=$(info_field "$rp" used_memory); zu1=$(info_field "$zp" used_memory)
  printf '%-10s | rbkv %6.2f B/element | redis %6.2f B/element | %5s\n' "$kind" \
    "$(awk -v a="$ru1" -v b="$ru0" -v n="$ELEMENTS" 'BEGIN { print (a - b) / n }')" \
    "$(awk -v a="$zu1" -v b="$zu0" -v n="$ELEMENTS" 'BEGIN { print (a - b) / n }')" \
    "$(ratio "$((ru1 - ru0))" "$((zu1 - zu0))")"
  bench_cleanup
done
