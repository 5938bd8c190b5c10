#!/usr/bin/env bash
# A cluster-wide KRANGE ... LIMIT 100 on three rbkv primaries, against the same range on one rbkv
# node, a range within one {hash tag} on the cluster, and redis-server's ZRANGEBYLEX on one node.
#   bench/cluster_krange_vs_single.sh [--keys N] [--requests R] [--rounds K] [--parts P] [--quick]
# Keys key:000000000000{T} .. (N in all, default 300000, value "v"), T one of three tags chosen so
# that each primary holds a third of them: key order interleaves the three nodes, so every range
# needs every node. One standalone rbkv holds the same keys; redis-server holds the same strings as
# members of one sorted set. A fourth group, {s}key:000000000000 .. (N / 3 keys), lives in one slot.
# redis-benchmark (50 clients, no pipelining, R requests, default 20000; __rand_int__ a random
# start) runs, K rounds (default 3) taking turns:
#   cluster   KRANGE [key:R (key:~ BYLEX LIMIT 0 100          on the first primary
#   single    the same on the standalone rbkv
#   tagged    KRANGE [{s}key:R [{s}key:~ BYLEX LIMIT 0 100    on the tag's primary
#   redis     ZRANGEBYLEX z [key:R (key:~ LIMIT 0 100          on redis-server
#   ksplit-c  KSPLIT P [key: (key:~   (R / 10 requests)        on the first primary (selection)
#   ksplit-1  the same on the standalone rbkv
# and how many rounds (requests to each primary) one cluster-wide KSPLIT took, from a second
# primary's KLOCAL calls (INFO commandstats). P defaults to 8.
# Reports, per line, the best throughput and the p50/p99 latencies (ms) of its round, and the
# ratios cluster/single and cluster/redis (throughput; lower means the fan-out costs that much).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
KEYS=300000 REQUESTS=20000 ROUNDS=3 PARTS=8
while [ $# -gt 0 ]; do
  case $1 in
    --keys) KEYS=$2; shift 2 ;;
    --requests) REQUESTS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --parts) PARTS=$2; shift 2 ;;
    --quick) KEYS=30000; REQUESTS=2000; ROUNDS=1; shift ;;
    *) echo "usage: $0 [--keys N] [--requests R] [--rounds K] [--parts P] [--quick]" >&2; exit 2 ;;
  esac
done
ensure_built
work=$(mktemp -d "${TMPDIR:-/tmp}/krange-bench-XXXXXX")
trap 'bench_cleanup; rm -rf "$work"' EXIT

ports=()
for i in 0 1 2; do
  p=$(free_port); d="$work/$p"; mkdir -p "$d"
  (cd "$d" && exec "$RBKV_BIN" --port "$p" --cluster-enabled yes --cluster-port "$(free_port)" \
     --save '' --appendonly no --loglevel warning >/dev/null 2>&1) &
  BENCH_PIDS+=($!); ports+=("$p")
  wait_ping "$p"
done
redis-cli --cluster create "127.0.0.1:${ports[0]}" "127.0.0.1:${ports[1]}" \
  "127.0.0.1:${ports[2]}" --cluster-yes >/dev/null
for _ in $(seq 300); do
  redis-cli -p "${ports[0]}" cluster info | grep -q cluster_state:ok && break
  sleep 0.1
done
SINGLE=$(free_port); start_rbkv "$SINGLE" --save '' --appendonly no
REDIS=$(free_port); start_redis "$REDIS"

# The node (index into ports) serving key's slot.
owner() {
  local slot line
  slot=$(redis-cli -p "${ports[0]}" cluster keyslot "$1")
  for i in 0 1 2; do
    line=$(redis-cli -p "${ports[$i]}" cluster nodes | grep myself)
    for r in $(echo "$line" | cut -d' ' -f9-); do
      lo=${r%-*}; hi=${r#*-}
      if [ "$slot" -ge "$lo" ] && [ "$slot" -le "$hi" ]; then echo "$i"; return; fi
    done
  done
}
# One tag per primary.
tags=("" "" "")
for t in $(seq 0 200); do
  i=$(owner "t$t")
  [ -z "${tags[$i]}" ] && tags[$i]="t$t"
  [ -n "${tags[0]}" ] && [ -n "${tags[1]}" ] && [ -n "${tags[2]}" ] && break
done

gen_set() { # FROM STEP TAG: keys from, from + step, ... below KEYS
  awk -v from="$1" -v step="$2" -v tag="$3" -v n="$KEYS" 'BEGIN {
    for (i = from; i < n; i += step) {
      k = sprintf("key:%012d{%s}", i, tag)
      printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", length(k), k } }'
}
gen_zadd() {
  awk -v n="$KEYS" -v t0="${tags[0]}" -v t1="${tags[1]}" -v t2="${tags[2]}" 'BEGIN {
    split(t0 " " t1 " " t2, t, " ")
    for (i = 0; i < n; i += 1000) {
      m = n - i < 1000 ? n - i : 1000
      printf "*%d\r\n$4\r\nZADD\r\n$1\r\nz\r\n", 2 + 2 * m
      for (j = i; j < i + m; j++) {
        k = sprintf("key:%012d{%s}", j, t[j % 3 + 1]); printf "$1\r\n0\r\n$%d\r\n%s\r\n", length(k), k
      } } }'
}
gen_tagged() {
  awk -v n="$((KEYS / 3))" 'BEGIN { for (i = 0; i < n; i++) {
    k = sprintf("{s}key:%012d", i); printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", length(k), k } }'
}
load() { # PORT GENERATOR ARGS...
  local port=$1; shift
  "$@" | redis-cli -p "$port" --pipe | grep -q "errors: 0" || { echo "loading into $port failed" >&2; exit 1; }
}
for i in 0 1 2; do
  load "${ports[$i]}" gen_set "$i" 3 "${tags[$i]}"
  load "$SINGLE" gen_set "$i" 3 "${tags[$i]}"
done
S=$(owner "s")
load "${ports[$S]}" gen_tagged
load "$REDIS" gen_zadd
total=$(redis-cli -p "${ports[0]}" kcount "[key:" "(key:~")
[ "$total" = "$KEYS" ] || { echo "the cluster counts $total keys, not $KEYS" >&2; exit 1; }

# KSPLIT on the cluster splits as one node does.
[ "$(redis-cli -p "${ports[0]}" ksplit "$PARTS" "[key:" "(key:~")" = \
  "$(redis-cli -p "$SINGLE" ksplit "$PARTS" "[key:" "(key:~")" ] ||
  { echo "KSPLIT $PARTS differs between the cluster and one node" >&2; exit 1; }
redis-cli -p "${ports[1]}" config resetstat >/dev/null
for _ in $(seq 10); do redis-cli -p "${ports[0]}" ksplit "$PARTS" "[key:" "(key:~" >/dev/null; done
klocal=$(redis-cli -p "${ports[1]}" info commandstats | tr -d '\r' |
  sed -n 's/^cmdstat_klocal:calls=\([0-9]*\),.*/\1/p')

# bench PORT COMMAND...: "rps p50 p99" from redis-benchmark's CSV; N requests (default R).
bench() {
  local port=$1; shift
  redis-benchmark -p "$port" -n "${N:-$REQUESTS}" -c 50 -r "$KEYS" --csv "$@" |
    awk -F, 'NR > 1 { gsub(/"/, ""); print $2, $5, $7; found = 1; exit }
      END { if (!found) { print "redis-benchmark gave no result" > "/dev/stderr"; exit 1 } }'
}
declare -A best
keep() { # NAME "rps p50 p99"; an empty one (bench failed inside the argument) stops the script
  [ -n "$2" ] || { echo "a measured run gave no result for $1" >&2; exit 1; }
  local old=${best[$1]:-0 0 0}
  awk -v a="$2" -v b="$old" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[1] > y[1]) }' &&
    best[$1]=$2 || true
}
for _ in $(seq "$ROUNDS"); do
  keep cluster "$(bench "${ports[0]}" KRANGE '[key:__rand_int__' '(key:~' BYLEX LIMIT 0 100)"
  keep single "$(bench "$SINGLE" KRANGE '[key:__rand_int__' '(key:~' BYLEX LIMIT 0 100)"
  keep tagged "$(bench "${ports[$S]}" KRANGE '[{s}key:__rand_int__' '[{s}key:~' BYLEX LIMIT 0 100)"
  keep redis "$(bench "$REDIS" ZRANGEBYLEX z '[key:__rand_int__' '(key:~' LIMIT 0 100)"
  keep ksplit-c "$(N=$((REQUESTS / 10)) bench "${ports[0]}" KSPLIT "$PARTS" '[key:' '(key:~')"
  keep ksplit-1 "$(N=$((REQUESTS / 10)) bench "$SINGLE" KSPLIT "$PARTS" '[key:' '(key:~')"
done
printf "%-8s %12s %8s %8s\n" case rps p50_ms p99_ms
for k in cluster single tagged redis ksplit-c ksplit-1; do
  read -r rps p50 p99 <<<"${best[$k]}"
  printf "%-8s %12s %8s %8s\n" "$k" "$rps" "$p50" "$p99"
done
read -r c _ <<<"${best[cluster]}"; read -r s _ <<<"${best[single]}"; read -r r _ <<<"${best[redis]}"
echo "throughput cluster/single $(ratio "$c" "$s"), cluster/redis $(ratio "$c" "$r")"
read -r c _ <<<"${best[ksplit-c]}"; read -r s _ <<<"${best[ksplit-1]}"
echo "KSPLIT $PARTS over $KEYS keys: throughput cluster/single $(ratio "$c" "$s"), $((klocal / 10)) rounds per query"
