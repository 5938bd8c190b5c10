#!/usr/bin/env bash
# The sorted-set commands against Debian's redis-server, in one run, through redis-benchmark.
#   bench/zset_vs_redis.sh [--rounds N] [--members N]
#
# Both servers get the same data: zs holds m:000000000000 .. (members - 1) with score i, zl the
# same members all with score 0 (the lex commands assume equal scores), z1k the first 1,000
# members of zs. The bytes per member are INFO used_memory grown by loading zs, over its size.
# redis-benchmark (50 clients, pipelines of 16, __rand_int__ a random 12-digit number below
# --members) then runs, on each server:
#   ZADD zadd R m:R                          random inserts into a growing set
#   ZRANK zs m:R, ZSCORE zs m:R
#   ZRANGEBYSCORE zs R +inf LIMIT 0 100
#   ZRANGEBYLEX zl [m:R + LIMIT 0 100
#   ZCOUNT zs -inf +inf, ZCOUNT z1k -inf +inf   over the whole set, large and small
# The servers alternate for --rounds rounds (default 3), so drift on a busy machine hits both;
# the best throughput of each is kept, with the time inside the command (INFO commandstats
# usec_per_call over the rounds of that row), which leaves out the client and the network.
#
# RBKV_BIN picks the server binary (default build/server/rbkv-server, built by ensure_built
# unless BENCH_NO_BUILD is set). Needs about 1 GB of memory for the default 1,000,000 members.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ROUNDS=3
MEMBERS=1000000
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --members) MEMBERS=$2; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--members N]" >&2; exit 2 ;;
  esac
done
ensure_built

# rps PORT REQUESTS COMMAND...: the requests per second redis-benchmark reports.
rps() {
  local port=$1 n=$2; shift 2
  redis-benchmark -p "$port" -n "$n" -c 50 -P 16 -r "$MEMBERS" --csv "$@" |
    csv_rps
}


# KEY N SCORE: ZADD commands for m:000000000000 .. m:(N-1), a thousand members each; SCORE is
# "i" for score i, else that constant.
gen_zadd() {
  awk -v key="$1" -v n="$2" -v fixed="$3" 'BEGIN {
    for (i = 0; i < n; i += 1000) {
      m = n - i < 1000 ? n - i : 1000
      printf "*%d\r\n$4\r\nZADD\r\n$%d\r\n%s\r\n", 2 + 2 * m, length(key), key
      for (j = i; j < i + m; j++) {
        s = fixed == "i" ? j "" : fixed
        printf "$%d\r\n%s\r\n$14\r\nm:%012d\r\n", length(s), s, j
      }
    } }'
}

load() { # PORT KEY N SCORE
  gen_zadd "$2" "$3" "$4" | redis-cli -p "$1" --pipe | grep -q "errors: 0" ||
    { echo "loading $2 into $1 failed" >&2; exit 1; }
  [ "$(redis-cli -p "$1" zcard "$2")" = "$3" ] || { echo "$2 on $1 is short" >&2; exit 1; }
}

used_memory() { info_field "$1" used_memory; }

RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"
echo "== $MEMBERS members; rbkv $RBKV_BIN vs $(redis-server --version | awk '{ print $3 }')"
declare -A BYTES
for port in "$RBKV_PORT" "$REDIS_PORT"; do
  before=$(used_memory "$port")
  load "$port" zs "$MEMBERS" i
  BYTES[$port]=$(awk -v a="$(used_memory "$port")" -v b="$before" -v n="$MEMBERS" \
    'BEGIN { printf "%.1f", (a - b) / n }')
  load "$port" zl "$MEMBERS" 0
  redis-cli -p "$port" zrangestore z1k zs 0 999 >/dev/null
done
printf '%-40s %12s\n' "bytes per member (zs)" "rbkv ${BYTES[$RBKV_PORT]}, redis ${BYTES[$REDIS_PORT]}, ratio $(ratio "${BYTES[$RBKV_PORT]}" "${BYTES[$REDIS_PORT]}")"

TESTS=(
  "zadd|1000000|ZADD zadd __rand_int__ m:__rand_int__"
  "zrank|1000000|ZRANK zs m:__rand_int__"
  "zscore|1000000|ZSCORE zs m:__rand_int__"
  "zrangebyscore|200000|ZRANGEBYSCORE zs __rand_int__ +inf LIMIT 0 100"
  "zrangebylex|200000|ZRANGEBYLEX zl [m:__rand_int__ + LIMIT 0 100"
  "zcount|1000000|ZCOUNT zs -inf +inf"
  "zcount|1000000|ZCOUNT z1k -inf +inf"
)
printf '%-44s %11s %11s %6s %8s %8s\n' "best of $ROUNDS rounds" "rbkv ops/s" "redis ops/s" ratio \
  "rbkv us" "redis us"
for t in "${TESTS[@]}"; do
  IFS='|' read -r name n cmd <<<"$t"
  for port in "$RBKV_PORT" "$REDIS_PORT"; do redis-cli -p "$port" config resetstat >/dev/null; done
  r=0; s=0
  for _ in $(seq "$ROUNDS"); do
    # shellcheck disable=SC2086 # the command is a word list on purpose
    r=$(best "$r" "$(rps "$RBKV_PORT" "$n" $cmd)")
    # shellcheck disable=SC2086
    s=$(best "$s" "$(rps "$REDIS_PORT" "$n" $cmd)")
  done
  printf '%-44s %11s %11s %6s %8s %8s\n' "${cmd//__rand_int__/R}" "$r" "$s" "$(ratio "$r" "$s")" \
    "$(usec_per_call "$RBKV_PORT" "$name")" "$(usec_per_call "$REDIS_PORT" "$name")"
done
