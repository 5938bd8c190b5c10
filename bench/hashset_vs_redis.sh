#!/usr/bin/env bash
# Hashes and sets against Debian's redis-server, in one run.
#   bench/hashset_vs_redis.sh [--rounds N] [--quick]
#
# Part 1, throughput: redis-benchmark (50 clients, -P 1 and -P 16, __rand_int__ over 100,000
# keys) runs each test on both servers, alternating for --rounds rounds (default 3); the best
# of each is kept and the ratio is rbkv / redis:
#   HSET h:R f1 v1 ... f10 v10 (a 10-field hash, 16-byte names and values)
#   HGET h:R f5, HGETALL h:R             on the 10-field hashes the HSET test made
#   SADD s:R m:R, SISMEMBER s:R m:R      small sets
#   SINTER a b                           two 10,000-member sets sharing half their members
#   HRANGE big [f:R + BYLEX LIMIT 0 100  a 1,000,000-field hash, against Redis's closest:
#     ZRANGEBYLEX zbig [f:R + LIMIT 0 100 on a 1,000,000-member sorted set (all scores 0)
# With two cores, redis-benchmark parsing the replies competes with the server, so throughput
# understates a server's speed on long replies; the server's own CPU time per request at -P 16
# (from /proc/PID/stat, over all rounds) is shown beside it, ratio redis / rbkv.
# Part 2, memory (used_memory and RSS growth, fresh servers): 1,000,000 hashes of 10 fields
# (16-byte field names and values), and one set of 10,000,000 members (m:%012d: 14 bytes).
# --quick: one round, 100,000 hashes and 1,000,000 members, for a smoke run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ROUNDS=3
HASHES=1000000
MEMBERS=10000000
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --quick) ROUNDS=1; HASHES=100000; MEMBERS=1000000; shift ;;
    *) echo "usage: $0 [--rounds N] [--quick]" >&2; exit 2 ;;
  esac
done
ensure_built

KEYS=100000
BIG=1000000

rps() { # PORT REQUESTS PIPELINE COMMAND...
  local port=$1 n=$2 pipeline=$3; shift 3
  redis-benchmark -p "$port" -n "$n" -c 50 -P "$pipeline" -r "$KEYS" --csv "$@" |
    csv_rps
}
load() { # PORT GENERATOR ARGS...
  local port=$1; shift
  "$@" | redis-cli -p "$port" --pipe | grep -q "errors: 0" || { echo "loading into $port failed" >&2; exit 1; }
}

# Field i of a hash: 16-byte names and values.
FIELDS=""
for i in $(seq 1 10); do FIELDS+=$(printf ' field:%010d value:%010d' "$i" "$i"); done

# Two sets of 10,000 members, a from 0, b from 5,000.
gen_pair() {
  awk 'BEGIN { for (k = 0; k < 2; k++) for (i = 0; i < 10000; i += 1000) {
      printf "*1002\r\n$4\r\nSADD\r\n$1\r\n%s\r\n", k ? "b" : "a"
      for (j = i; j < i + 1000; j++) printf "$16\r\nmember:%09d\r\n", j + 5000 * k } }'
}
# One big hash and the same names in a sorted set (all scores 0), 1000 per command.
gen_big() { # hash|zset N
  awk -v kind="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i += 1000) {
      if (kind == "hash") printf "*2002\r\n$4\r\nHSET\r\n$3\r\nbig\r\n"
      else printf "*2002\r\n$4\r\nZADD\r\n$4\r\nzbig\r\n"
      for (j = i; j < i + 1000; j++)
        if (kind == "hash") printf "$16\r\nf:%014d\r\n$1\r\nv\r\n", j
        else printf "$1\r\n0\r\n$16\r\nf:%014d\r\n", j } }'
}
gen_hashes() { # N
  awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) {
      printf "*22\r\n$4\r\nHSET\r\n$14\r\nhash:%09d\r\n", i
      for (j = 1; j <= 10; j++) printf "$16\r\nfield:%010d\r\n$16\r\nvalue:%010d\r\n", j, j } }'
}
gen_members() { # N
  awk -v n="$1" 'BEGIN { for (i = 0; i < n; i += 1000) {
      printf "*1002\r\n$4\r\nSADD\r\n$3\r\nset\r\n"
      for (j = i; j < i + 1000; j++) printf "$14\r\nm:%012d\r\n", j } }'
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; } # user + system time of PID
TICK_US=$((1000000 / $(getconf CLK_TCK)))
per_req() { awk -v t="$1" -v u="$TICK_US" -v n="$2" 'BEGIN { printf "%.2f", t * u / n }'; }

echo "== Part 1: throughput, best of $ROUNDS rounds (50 clients)"
RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"; RBKV_PID=${BENCH_PIDS[-1]}
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"; REDIS_PID=${BENCH_PIDS[-1]}
for port in "$RBKV_PORT" "$REDIS_PORT"; do load "$port" gen_pair; done
load "$RBKV_PORT" gen_big hash "$BIG"
load "$REDIS_PORT" gen_big zset "$BIG"

# name|requests|rbkv command|redis command (empty: the same)
TESTS=(
  "HSET 10 fields|200000|HSET h:__rand_int__$FIELDS|"
  "HGET|500000|HGET h:__rand_int__ field:0000000005|"
  "HGETALL 10 fields|300000|HGETALL h:__rand_int__|"
  "SADD|500000|SADD s:__rand_int__ m:__rand_int__|"
  "SISMEMBER|500000|SISMEMBER s:__rand_int__ m:__rand_int__|"
  "SINTER 10k x 10k|3000|SINTER a b|"
  "HRANGE vs ZRANGEBYLEX|200000|HRANGE big [f:00__rand_int__ + BYLEX LIMIT 0 100|ZRANGEBYLEX zbig [f:00__rand_int__ + LIMIT 0 100"
)
printf '%-24s | %10s %10s %6s | %10s %10s %6s | %8s %8s %6s\n' "" "rbkv -P1" "redis -P1" ratio \
  "rbkv -P16" "redis -P16" ratio "rbkv cpu" "redis" ratio
printf '%-24s | %29s | %29s | %24s\n' "" "op/s" "op/s" "server us/request, -P16"
for t in "${TESTS[@]}"; do
  IFS='|' read -r name n kcmd zcmd <<<"$t"
  [ -n "$zcmd" ] || zcmd=$kcmd
  line=$(printf '%-24s' "$name")
  for p in 1 16; do
    m=$n; [ "$p" = 1 ] && m=$((n / 4))
    r=0; s=0; rt=0; st=0
    for _ in $(seq "$ROUNDS"); do
      t0=$(cpu_ticks "$RBKV_PID")
      # shellcheck disable=SC2086 # the commands are word lists on purpose
      r=$(best "$r" "$(rps "$RBKV_PORT" "$m" "$p" $kcmd)")
      t1=$(cpu_ticks "$RBKV_PID"); rt=$((rt + t1 - t0))
      t0=$(cpu_ticks "$REDIS_PID")
      # shellcheck disable=SC2086
      s=$(best "$s" "$(rps "$REDIS_PORT" "$m" "$p" $zcmd)")
      t1=$(cpu_ticks "$REDIS_PID"); st=$((st + t1 - t0))
    done
    line+=$(printf ' | %10.0f %10.0f %6s' "$r" "$s" "$(ratio "$r" "$s")")
  done
  rc=$(per_req "$rt" "$((n * ROUNDS))"); sc=$(per_req "$st" "$((n * ROUNDS))")
  line+=$(printf ' | %8s %8s %6s' "$rc" "$sc" "$(ratio "$sc" "$rc")")
  echo "$line"
done
bench_cleanup; BENCH_PIDS=()

echo
echo "== Part 2: memory"
mem_row() { # LABEL GENERATOR ARGS...
  local label=$1; shift
  local rp zp ru0 zu0 rr0 zr0 ru1 zu1 rr1 zr1 rpid zpid
  rp=$(free_port); start_rbkv "$rp"; rpid=${BENCH_PIDS[-1]}
  zp=$(free_port); start_redis "$zp"; zpid=${BENCH_PIDS[-1]}
  ru0=$(info_field "$rp" used_memory); zu0=$(info_field "$zp" used_memory)
  rr0=$(awk '/VmRSS/ { print $2 * 1024 }' "/proc/$rpid/status")
  zr0=$(awk '/VmRSS/ { print $2 * 1024 }' "/proc/$zpid/status")
  load "$rp" "$@"; load "$zp" "$@"
  ru1=$(info_field "$rp" used_memory); zu1=$(info_field "$zp" used_memory)
  rr1=$(awk '/VmRSS/ { print $2 * 1024 }' "/proc/$rpid/status")
  zr1=$(awk '/VmRSS/ { print $2 * 1024 }' "/proc/$zpid/status")
  printf '%-34s | used %7.1f MB vs %7.1f MB: %5s | RSS %7.1f MB vs %7.1f MB: %5s\n' "$label" \
    "$(awk -v a="$ru1" -v b="$ru0" 'BEGIN { print (a - b) / 1048576 }')" \
    "$(awk -v a="$zu1" -v b="$zu0" 'BEGIN { print (a - b) / 1048576 }')" \
    "$(ratio "$((ru1 - ru0))" "$((zu1 - zu0))")" \
    "$(awk -v a="$rr1" -v b="$rr0" 'BEGIN { print (a - b) / 1048576 }')" \
    "$(awk -v a="$zr1" -v b="$zr0" 'BEGIN { print (a - b) / 1048576 }')" \
    "$(ratio "$((rr1 - rr0))" "$((zr1 - zr0))")"
  bench_cleanup; BENCH_PIDS=()
}
echo "(rbkv vs redis; ratio rbkv / redis)"
mem_row "$HASHES hashes x 10 fields" gen_hashes "$HASHES"
mem_row "one set of $MEMBERS members" gen_members "$MEMBERS"
