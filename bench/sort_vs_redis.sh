#!/usr/bin/env bash
# SORT of 100,000 elements against Debian's redis-server 7, in one run.
#   bench/sort_vs_redis.sh [--rounds N] [--quick]
#
# Loads on both servers a list l of 100,000 random integers, a set s and a sorted set z of 100,000
# random words (z's scores random), and weights w:<n> for the first 10,000 integers (BY w:*, the
# others weigh 0); checks that SORT l returns the same bytes on both; then redis-benchmark (4
# clients, -P 1) runs each call on both servers, alternating for --rounds rounds (default 3); the
# best of each is kept and the ratio is rbkv / redis. Every call sorts the whole key (LIMIT 0 10
# only keeps the reply small), except BY nosort, which reads the range alone.
# --quick: one round with a tenth of the requests, for a smoke run.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

rounds_args "$@"
ensure_built

rps() { # PORT REQUESTS COMMAND...
  local port=$1 n=$2; shift 2
  redis-benchmark -p "$port" -n "$n" -c 4 --csv "$@" |
    csv_rps
}
# The loads as RESP, 1000 elements per command, the same on both servers (a fixed seed).
gen() {
  awk '
    function word(  w, k) {
      w = ""
      for (k = 0; k < 8; k++) w = w sprintf("%c", 97 + int(rand() * 26))
      return w
    }
    function cmd(name, key, n) {
      printf "*%d\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", n + 2, length(name), name, length(key), key
    }
    function bulk(s) { printf "$%d\r\n%s\r\n", length(s), s }
    BEGIN {
      srand(37)
      for (i = 0; i < 100000; i += 1000) {
        cmd("RPUSH", "l", 1000)
        for (j = 0; j < 1000; j++) {
          v = int(rand() * 1000000000)
          if (i < 10000) w[i + j] = v
          bulk(v)
        }
        cmd("SADD", "s", 1000)
        for (j = 0; j < 1000; j++) bulk(word())
        cmd("ZADD", "z", 2000)
        for (j = 0; j < 1000; j++) { bulk(int(rand() * 1000)); bulk(word()) }
      }
      for (i = 0; i < 10000; i++) {
        printf "*3\r\n$3\r\nSET\r\n"
        bulk("w:" w[i])
        bulk(int(rand() * 100))
      }
    }'
}

RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"
for port in "$RBKV_PORT" "$REDIS_PORT"; do
  gen | redis-cli -p "$port" --pipe | grep -q "errors: 0" ||
    { echo "loading into $port failed" >&2; exit 1; }
done
ours=$(redis-cli -p "$RBKV_PORT" sort l | md5sum)
[ "$ours" = "$(redis-cli -p "$REDIS_PORT" sort l | md5sum)" ] ||
  { echo "SORT l differs between the servers" >&2; exit 1; }
# name|requests
TESTS=(
  "SORT l LIMIT 0 10|40"
  "SORT l DESC LIMIT 0 10|40"
  "SORT l ALPHA LIMIT 0 10|40"
  "SORT l BY w:* LIMIT 0 10|40"
  "SORT s ALPHA LIMIT 0 10|40"
  "SORT z ALPHA LIMIT 0 10|40"
  "SORT z BY nosort LIMIT 0 10|40000"
)
printf '%-32s | %10s %10s %6s\n' "" "rbkv" "redis" ratio
for t in "${TESTS[@]}"; do
  IFS='|' read -r cmd n <<<"$t"
  n=$(( (n + SCALE - 1) / SCALE ))
  r=0; s=0
  for _ in $(seq "$ROUNDS"); do
    # shellcheck disable=SC2086 # the command is a word list on purpose
    r=$(best "$r" "$(rps "$RBKV_PORT" "$n" $cmd)")
    # shellcheck disable=SC2086
    s=$(best "$s" "$(rps "$REDIS_PORT" "$n" $cmd)")
  done
  printf '%-32s | %10.1f %10.1f %6s\n' "${cmd:0:32}" "$r" "$s" "$(ratio "$r" "$s")"
done
