#!/usr/bin/env bash
# The ordered keyspace commands against Debian's redis-server, in one run.
#   bench/ordered_vs_redis.sh [--rounds N] [--max-keys N] [--part 1|2]   (default: both parts)
#
# Part 1: rbkv holds 1,000,000 keys key:000000000000 .. key:000000999999 (value "v"); redis-server
# holds the same strings as the members of one sorted set z, all with score 0. redis-benchmark
# (50 clients, pipelines of 16, __rand_int__ for a random key) runs each pair of tests:
#   KRANGE [key:R (key:~ BYLEX LIMIT 0 100   vs  ZRANGEBYLEX z [key:R (key:~ LIMIT 0 100
#   KCOUNT [key:R (key:~                     vs  ZLEXCOUNT z [key:R (key:~
#   KRANK key:R                              vs  ZRANK z key:R
# The two servers alternate for --rounds rounds (default 3) so drift on a busy machine hits both;
# the best throughput of each is kept. Throughput is bounded by the client as much as by the
# server (redis-benchmark parses every reply on the same cores), so two server-side costs are
# shown too, over all rounds: the CPU time the server process used per request (from
# /proc/PID/stat: parsing, the command, the reply, the socket) and the time inside the command
# (INFO commandstats usec_per_call).
#
# Part 2: KEYS hot:*, 100 keys hot:000 .. hot:099 among 10,000, 1,000,000 and 10,000,000 keys
# (the rest key:...), in both servers as plain keys: rbkv's KEYS and SCAN 0 MATCH hot:* COUNT 100
# against Redis's KEYS, which has to visit every key. The ratio compares the two servers' KEYS at
# the same setting, one client and no pipelining (each Redis call takes up to a second); rbkv's
# KEYS and SCAN at 50 clients x -P 16 are shown beside it. --max-keys 1000000 stops before
# 10,000,000 (loading those takes about a minute per server and 2 GB of memory in all).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ROUNDS=3
MAX_KEYS=10000000
PART=all
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --max-keys) MAX_KEYS=$2; shift 2 ;;
    --part) PART=$2; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--max-keys N] [--part 1|2]" >&2; exit 2 ;;
  esac
done
ensure_built

KEYS=1000000
HOT=100

# rps PORT REQUESTS CLIENTS PIPELINE COMMAND...: the throughput redis-benchmark reports.
rps() {
  local port=$1 n=$2 clients=$3 pipeline=$4; shift 4
  redis-benchmark -p "$port" -n "$n" -c "$clients" -P "$pipeline" -r "$KEYS" --csv "$@" |
    csv_rps
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; } # user + system time of PID
TICK_US=$((1000000 / $(getconf CLK_TCK)))
us() { awk -v r="$1" 'BEGIN { printf "%.1f", 1e6 / r }'; }

# Keys [from, to) as SET commands for redis-cli --pipe.
gen_set() {
  awk -v from="$1" -v to="$2" 'BEGIN {
    for (i = from; i < to; i++) printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$1\r\nv\r\n", i }'
}

# The same strings as members of z, a thousand per ZADD.
gen_zadd() {
  awk -v n="$1" 'BEGIN {
    for (i = 0; i < n; i += 1000) {
      m = n - i < 1000 ? n - i : 1000
      printf "*%d\r\n$4\r\nZADD\r\n$1\r\nz\r\n", 2 + 2 * m
      for (j = i; j < i + m; j++) printf "$1\r\n0\r\n$16\r\nkey:%012d\r\n", j
    } }'
}

gen_hot() {
  awk -v n="$HOT" 'BEGIN { for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$7\r\nhot:%03d\r\n$1\r\nv\r\n", i }'
}

part1() {
  echo "== Part 1: $KEYS keys (rbkv) against one sorted set of $KEYS members (redis-server)"
  RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"; RBKV_PID=${BENCH_PIDS[-1]}
  REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"; REDIS_PID=${BENCH_PIDS[-1]}
  load "$RBKV_PORT" gen_set 0 "$KEYS"
  load "$REDIS_PORT" gen_zadd "$KEYS"
  redis-cli -p "$RBKV_PORT" config resetstat >/dev/null
  redis-cli -p "$REDIS_PORT" config resetstat >/dev/null

  TESTS=(
    "KRANGE|300000|KRANGE [key:__rand_int__ (key:~ BYLEX LIMIT 0 100|ZRANGEBYLEX|ZRANGEBYLEX z [key:__rand_int__ (key:~ LIMIT 0 100"
    "KCOUNT|1000000|KCOUNT [key:__rand_int__ (key:~|ZLEXCOUNT|ZLEXCOUNT z [key:__rand_int__ (key:~"
    "KRANK|1000000|KRANK key:__rand_int__|ZRANK|ZRANK z key:__rand_int__"
  )
  printf '%-24s | %10s %10s %5s | %8s %8s %5s | %8s %8s %5s\n' "(best of $ROUNDS rounds)" \
    "rbkv op/s" "redis op/s" ratio "rbkv cpu" "redis" ratio "rbkv cmd" "redis" ratio
  printf '%-24s | %27s | %24s | %24s\n' "" "throughput" "server CPU us/request" "in-command us/call"
  for t in "${TESTS[@]}"; do
    IFS='|' read -r kname n kcmd zname zcmd <<<"$t"
    r=0; s=0; rt=0; st=0
    for _ in $(seq "$ROUNDS"); do
      t0=$(cpu_ticks "$RBKV_PID")
      # shellcheck disable=SC2086 # the commands are word lists on purpose
      r=$(best "$r" "$(rps "$RBKV_PORT" "$n" 50 16 $kcmd)")
      t1=$(cpu_ticks "$RBKV_PID"); rt=$((rt + t1 - t0))
      t0=$(cpu_ticks "$REDIS_PID")
      # shellcheck disable=SC2086
      s=$(best "$s" "$(rps "$REDIS_PORT" "$n" 50 16 $zcmd)")
      t1=$(cpu_ticks "$REDIS_PID"); st=$((st + t1 - t0))
    done
    rc=$(awk -v t="$rt" -v u="$TICK_US" -v n="$((n * ROUNDS))" 'BEGIN { printf "%.2f", t * u / n }')
    sc=$(awk -v t="$st" -v u="$TICK_US" -v n="$((n * ROUNDS))" 'BEGIN { printf "%.2f", t * u / n }')
    ru=$(usec_per_call "$RBKV_PORT" "${kname,,}"); su=$(usec_per_call "$REDIS_PORT" "${zname,,}")
    printf '%-24s | %10.0f %10.0f %5s | %8s %8s %5s | %8s %8s %5s\n' "$kname vs $zname" "$r" "$s" \
      "$(ratio "$r" "$s")" "$rc" "$sc" "$(ratio "$sc" "$rc")" "$ru" "$su" "$(ratio "$su" "$ru")"
  done
  bench_cleanup; BENCH_PIDS=()
}

part2() {
  echo "== Part 2: KEYS hot:* ($HOT matching keys) as the keyspace grows"
  RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"
  REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"
  for port in "$RBKV_PORT" "$REDIS_PORT"; do load "$port" gen_hot; done
  printf '%-12s | %12s %12s %5s | %16s %16s\n' "" "-c 1 -P 1" "" "" "-c 50 -P 16" ""
  printf '%-12s | %12s %12s %5s | %16s %16s\n' keys "rbkv KEYS us" "redis KEYS us" ratio \
    "rbkv KEYS us" "rbkv SCAN us"
  loaded=$HOT
  for size in 10000 1000000 10000000; do
    [ "$size" -le "$MAX_KEYS" ] || break
    for port in "$RBKV_PORT" "$REDIS_PORT"; do load "$port" gen_set "$((loaded - HOT))" "$((size - HOT))"; done
    loaded=$size
    for port in "$RBKV_PORT" "$REDIS_PORT"; do
      [ "$(redis-cli -p "$port" dbsize)" = "$size" ] && [ "$(redis-cli -p "$port" keys 'hot:*' | wc -l)" = "$HOT" ] ||
        { echo "port $port does not hold the expected keys" >&2; exit 1; }
    done
    # Redis's KEYS visits every key: fewer calls, one client, as the keyspace grows.
    calls=$((20000000 / size)); [ "$calls" -ge 3 ] || calls=3
    k1=0; k=0; c=0; s=0
    for _ in $(seq "$ROUNDS"); do
      k1=$(best "$k1" "$(rps "$RBKV_PORT" 20000 1 1 KEYS 'hot:*')")
      k=$(best "$k" "$(rps "$RBKV_PORT" 200000 50 16 KEYS 'hot:*')")
      c=$(best "$c" "$(rps "$RBKV_PORT" 200000 50 16 SCAN 0 MATCH 'hot:*' COUNT 100)")
      s=$(best "$s" "$(rps "$REDIS_PORT" "$calls" 1 1 KEYS 'hot:*')")
    done
    printf '%-12s | %12s %12s %5s | %16s %16s\n' "$size" "$(us "$k1")" "$(us "$s")" "$(ratio "$k1" "$s")" \
      "$(us "$k")" "$(us "$c")"
  done
}

echo "tree at $(git -C "$ROOT" rev-parse --short HEAD), $(date -u '+%F %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
case $PART in
  all) part1; echo; part2 ;;
  1) part1 ;;
  2) part2 ;;
  *) echo "--part takes 1 or 2" >&2; exit 2 ;;
esac
