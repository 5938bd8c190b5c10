#!/usr/bin/env bash
# HyperLogLog against Debian's redis-server 7, in one run.
#   bench/hll_vs_redis.sh [--rounds N] [--quick]
#
# redis-benchmark (50 clients, -P 1 and -P 16) runs each test on both servers, alternating for
# --rounds rounds (default 3); the best of each is kept and the ratio is rbkv / redis:
#   PFADD hll e:R                     one dense HLL, random elements (R < 10,000,000)
#   PFADD s:R e:R                     100,000 sparse HLLs, one random element each time
#   PFCOUNT hll                       the cached count of one dense HLL
#   PFCOUNT hll hll2                  the union of two dense HLLs: a merge and a count each time
#   PFMERGE dst hll hll2              the same merge, stored
# hll and hll2 are loaded first with 100,000 elements each, so they are dense.
# --quick: one round with a tenth of the requests, for a smoke run.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

rounds_args "$@"
ensure_built

# PFADD KEY of N elements "<key>:<i>", 1000 per command.
gen_hll() { # KEY N
  awk -v key="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i += 1000) {
      m = (n - i < 1000) ? n - i : 1000
      printf "*%d\r\n$5\r\nPFADD\r\n$%d\r\n%s\r\n", m + 2, length(key), key
      for (j = i; j < i + m; j++) { e = key ":" j; printf "$%d\r\n%s\r\n", length(e), e } } }'
}

RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"
for port in "$RBKV_PORT" "$REDIS_PORT"; do
  for key in hll hll2; do
    gen_hll "$key" 100000 | pipe_load "$port"
  done
  [ "$(redis-cli -p "$port" pfdebug encoding hll)" = dense ] || { echo "hll is not dense" >&2; exit 1; }
done
# The same loads made the same bytes on both servers.
for key in hll hll2; do
  [ "$(redis-cli -p "$RBKV_PORT" get "$key" | md5sum)" = "$(redis-cli -p "$REDIS_PORT" get "$key" | md5sum)" ] ||
    { echo "$key differs between the servers" >&2; exit 1; }
done
# name|requests|range of __rand_int__
TESTS=(
  "PFADD hll e:__rand_int__|1000000|10000000"
  "PFADD s:__rand_int__ e:__rand_int__|1000000|100000"
  "PFCOUNT hll|1000000|1000"
  "PFCOUNT hll hll2|100000|1000"
  "PFMERGE dst hll hll2|100000|1000"
)
bench_row_header ""
for t in "${TESTS[@]}"; do
  IFS='|' read -r cmd n range <<<"$t"
  # shellcheck disable=SC2086 # the command is a word list on purpose
  bench_row "$cmd" "$n" "$range" $cmd
done
