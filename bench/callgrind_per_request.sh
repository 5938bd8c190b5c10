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
#   xadd      XADD s * f v (one stream, as stream_vs_redis.sh), -P 1
#   xadd-p16  XADD s * f v, pipelines of 16
#   lpush-p16 LPUSH l:<rand> xxx over 1,000 lists, pipelines of 16   (list_vs_redis.sh's lists)
#   rpop-p16  RPOP l:<rand> over 1,000 lists of 10 elements, pipelines of 16
#   lpush-big LPUSH big xxx on a 1,000,000-element list, -P 1
#   rpop-big  RPOP big on it, -P 1
#   lindex    LINDEX big 500000, the middle of it, -P 1
#   evalsha-incr  EVALSHA of "return redis.call('INCR', KEYS[1])" on n:<rand>
#   evalsha-3     EVALSHA of a SET, an INCR and a GET (list_vs_redis.sh's three-call script)
#   geo-box   GEOSEARCH geo FROMMEMBER m:<rand> BYBOX 40 40 km COUNT 5 ANY over 200,000 points
#             (longitudes 0..20, latitudes 40..50: geo_vs_redis.sh's density)
#   geo-radius  GEOSEARCH geo FROMMEMBER m:<rand> BYRADIUS 50 km ASC COUNT 10 on them (2.5M
#             instructions a call: N1=100 N2=400 do for it; for the cheap workloads a small
#             N2 - N1 leaves the load's varying cron work in the figure: N1=100 N2=300 once gave
#             rpop-p16 a negative count)
# and, -P 16 over 10,000 keys (random ones of all of them) loaded also as the members (score 0) of a sorted set zkeys, the
# ordered workloads of cpu_per_request.sh, which redis-server answers from zkeys:
#   range100  KRANGE '[key:<rand>' + BYLEX LIMIT 0 100 | ZRANGEBYLEX zkeys '[key:<rand>' + LIMIT 0 100
#   count     KCOUNT '[key:<rand>' +                   | ZLEXCOUNT zkeys '[key:<rand>' +
#   rank      KRANK key:<rand>                         | ZRANK zkeys key:<rand>
# A BINARY whose --version says "Redis server" (e.g. $(command -v redis-server)) is measured as
# redis-server: every workload but krange, repl-set and evalsha works on both, so the two columns
# give rbkv's instructions against Redis's:
#   WORKLOADS="ping-p16 set-p16 get-p16 range100 count rank" \
#     bench/callgrind_per_request.sh build/server/rbkv-server "$(command -v redis-server)"
# ORDERED_KEYS (default 10,000) sets the key count of range100, count and rank; CACHE_SIM=1 runs
# callgrind's cache simulation too and gives each cell as "instructions / D1 read misses" per
# request (the misses a tree descent pays, which the instruction count does not show; the
# simulated last level is the host's, so at 100,000 keys LL misses stay near 0 and D1 misses are
# the figure to compare):
#   CACHE_SIM=1 ORDERED_KEYS=100000 WORKLOADS="count rank" bench/callgrind_per_request.sh old new
# CLUSTER=1 starts every server in cluster mode owning all 16384 slots (CLUSTER ADDSLOTSRANGE,
# then cluster_state:ok), so the counts include routing and the per-slot key index:
#   CLUSTER=1 WORKLOADS="get set get-p16 set-p16" bench/callgrind_per_request.sh old new \
#     "$(command -v redis-server)"
# Prints one row per workload, one column per binary. Takes a few minutes per binary.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N1=${N1:-2000}
N2=${N2:-6000}
CLIENTS=${CLIENTS:-10}
ORDERED_KEYS=${ORDERED_KEYS:-10000}
WORKLOADS=${WORKLOADS:-"ping get set ping-p16 get-p16 set-p16 evalsha repl-set krange"}
[ $# -gt 0 ] || set -- "$RBKV_BIN"
# Each server starts in a folder of its own, so a relative BINARY is made absolute first (not
# resolved: Debian's redis-server is a link to redis-check-rdb, and Redis acts on the name).
bins=()
for b in "$@"; do
  [ -x "$b" ] || { echo "$b is not an executable" >&2; exit 1; }
  bins+=("$(cd "$(dirname "$b")" && pwd)/$(basename "$b")")
done
set -- "${bins[@]}"
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

# load PORT COUNT: COUNT keys key:000000000001... with 16-byte values, through redis-cli --pipe.
load() {
  awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) { k = sprintf("key:%012d", i)
    printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$16\r\nvalue:%010d\r\n", length(k), k, i } }' |
    pipe_load "$1"
}

# redis-benchmark may spin for ever once its server is gone (seen: 13 CPU minutes after a callgrind
# server ended), so each run is bounded, and a bound reached fails the whole measurement.
bench() { # PORT N ARGS...
  local port=$1 n=$2; shift 2
  timeout "${BENCH_TIMEOUT:-900}" redis-benchmark -p "$port" -c "$CLIENTS" -n "$n" -r "${RAND:-1000}" -q "$@" \
    >/dev/null || { echo "redis-benchmark $* on port $port failed or took too long" >&2; exit 1; }
}

# load_zset PORT COUNT: the same COUNT strings as members of the sorted set zkeys, score 0.
load_zset() { gen_zadd 0 "$2" | pipe_load "$1"; }

# load_lists PORT small|big: 1,000 lists l:000000000000.. of 10 elements, or big, 1,000,000
# elements (each only where it is used: a load's cron work under callgrind varies between the two
# runs, and a smaller load leaves less of it in the difference).
load_lists() {
  awk -v what="$2" 'BEGIN { if (what == "small") for (i = 0; i < 1000; i++) printf "*12\r\n$5\r\nRPUSH\r\n$14\r\nl:%012d\r\n%s", i,
                 "$3\r\nxxx\r\n$3\r\nxxx\r\n$3\r\nxxx\r\n$3\r\nxxx\r\n$3\r\nxxx\r\n$3\r\nxxx\r\n$3\r\nxxx\r\n$3\r\nxxx\r\n$3\r\nxxx\r\n$3\r\nxxx\r\n"
               if (what == "big") for (i = 0; i < 1000; i++) { printf "*1002\r\n$5\r\nRPUSH\r\n$3\r\nbig\r\n"
                 for (j = 0; j < 1000; j++) printf "$3\r\nxxx\r\n" } }' | pipe_load "$1"
}
# load_geo PORT: 200,000 points m:000000000000.. in geo, the same pseudo-random places each time.
load_geo() {
  awk 'BEGIN { srand(1); for (i = 0; i < 200000; i += 1000) { printf "*3002\r\n$6\r\nGEOADD\r\n$3\r\ngeo\r\n"
                 for (j = i; j < i + 1000; j++) { lon = sprintf("%.6f", rand() * 20); lat = sprintf("%.6f", 40 + rand() * 10)
                   m = sprintf("m:%012d", j)
                   printf "$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(lon), lon, length(lat), lat, length(m), m } } }' |
    pipe_load "$1"
}

is_redis() { "$1" --version 2>/dev/null | grep -q '^Redis server'; }

# one BINARY WORKLOAD N: the instruction total of one callgrind run.
one() {
  local bin=$1 w=$2 n=$3 dir port out rport="" redis="" RAND=1000 # RAND: bench's -r
  is_redis "$bin" && redis=1
  dir=$(mktemp -d "$WORK/run.XXXX")
  port=$(free_port)
  out=$dir/callgrind.out
  local cluster_args=()
  [ -z "${CLUSTER:-}" ] || cluster_args=(--cluster-enabled yes --cluster-port "$(free_port)")
  (cd "$dir" && exec valgrind --tool=callgrind ${CACHE_SIM:+--cache-sim=yes} \
    --callgrind-out-file="$out" "$bin" --port "$port" "${cluster_args[@]}" \
    --save '' --appendonly no --loglevel warning >/dev/null 2>"$dir/valgrind.log") &
  local pid=$!
  local up=""
  for _ in $(seq 1800); do
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && up=1 && break
    sleep 0.1
  done
  [ -n "$up" ] || { echo "$bin under callgrind did not answer in 180 s (cache simulation and a loaded machine slow its start): $(cat "$dir/valgrind.log")" >&2; exit 1; }
  if [ -n "${CLUSTER:-}" ]; then
    redis-cli -p "$port" CLUSTER ADDSLOTSRANGE 0 16383 >/dev/null
    up=""
    for _ in $(seq 1800); do
      redis-cli -p "$port" CLUSTER INFO 2>/dev/null | grep -q '^cluster_state:ok' && up=1 && break
      sleep 0.1
    done
    [ -n "$up" ] || { echo "$bin under callgrind: cluster_state never ok" >&2; exit 1; }
  fi
  case $w in
    krange) load "$port" 10000 ;;
    range100|count|rank) load "$port" "$ORDERED_KEYS"; load_zset "$port" "$ORDERED_KEYS" ;;
    lpush-p16|rpop-p16) load_lists "$port" small ;;
    lpush-big|rpop-big|lindex) load_lists "$port" big ;;
    geo-box|geo-radius) load_geo "$port" ;;
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
      up=""
      for _ in $(seq 600); do
        redis-cli -p "$rport" INFO replication 2>/dev/null | grep -q 'master_link_status:up' && up=1 && break
        sleep 0.1
      done
      [ -n "$up" ] || { echo "the replica of $bin never linked in 60 s" >&2; exit 1; }
      bench "$port" "$n" -t set -d 16
      kill "$rpid"; wait "$rpid" 2>/dev/null || true ;;
    krange) bench "$port" "$n" KRANGE '[key:__rand_int__' + BYLEX LIMIT 0 100 ;;
    xadd) bench "$port" "$n" XADD s '*' f v ;;
    xadd-p16) bench "$port" "$n" -P 16 XADD s '*' f v ;;
    lpush-p16) bench "$port" "$n" -P 16 LPUSH l:__rand_int__ xxx ;;
    rpop-p16) bench "$port" "$n" -P 16 RPOP l:__rand_int__ ;;
    lpush-big) bench "$port" "$n" LPUSH big xxx ;;
    rpop-big) bench "$port" "$n" RPOP big ;;
    lindex) bench "$port" "$n" LINDEX big 500000 ;;
    evalsha-incr|evalsha-3)
      local sha keys=(1 n:__rand_int__)
      if [ "$w" = evalsha-incr ]; then sha=$(redis-cli -p "$port" SCRIPT LOAD "return redis.call('INCR', KEYS[1])")
      else
        sha=$(redis-cli -p "$port" SCRIPT LOAD "redis.call('SET', KEYS[1], ARGV[1]); redis.call('INCR', KEYS[2]); return redis.call('GET', KEYS[1])")
        keys=(2 s:__rand_int__ n:__rand_int__ v)
      fi
      bench "$port" "$n" EVALSHA "$sha" "${keys[@]}" ;;
    geo-box|geo-radius) RAND=200000 ;;&
    geo-box) bench "$port" "$n" GEOSEARCH geo FROMMEMBER m:__rand_int__ BYBOX 40 40 km COUNT 5 ANY ;;
    geo-radius) bench "$port" "$n" GEOSEARCH geo FROMMEMBER m:__rand_int__ BYRADIUS 50 km ASC COUNT 10 ;;
    range100|count|rank) RAND=$ORDERED_KEYS ;;&
    range100)
      if [ -n "$redis" ]; then bench "$port" "$n" -P 16 ZRANGEBYLEX zkeys '[key:__rand_int__' + LIMIT 0 100
      else bench "$port" "$n" -P 16 KRANGE '[key:__rand_int__' + BYLEX LIMIT 0 100; fi ;;
    count)
      if [ -n "$redis" ]; then bench "$port" "$n" -P 16 ZLEXCOUNT zkeys '[key:__rand_int__' +
      else bench "$port" "$n" -P 16 KCOUNT '[key:__rand_int__' +; fi ;;
    rank)
      if [ -n "$redis" ]; then bench "$port" "$n" -P 16 ZRANK zkeys key:__rand_int__
      else bench "$port" "$n" -P 16 KRANK key:__rand_int__; fi ;;
    *) echo "unknown workload $w" >&2; exit 1 ;;
  esac
  redis-cli -p "$port" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
  wait "$pid" 2>/dev/null || true
  # Ir, then (CACHE_SIM) D1mr, from the events line's order.
  awk '/^events:/ { for (i = 2; i <= NF; i++) if ($i == "D1mr") d = i }
       /^(summary|totals):/ { print $2, (d ? $d : 0); exit }' "$out"
}

printf '%-13s' workload
for b in "$@"; do printf ' %22s' "$(basename "$(dirname "$(readlink -f "$b")")")/$(basename "$b")"; done
printf '\n'
for w in $WORKLOADS; do
  printf '%-13s' "$w"
  for b in "$@"; do
    a=$(one "$b" "$w" "$N1"); c=$(one "$b" "$w" "$N2")
    printf ' %22s' "$(awk -v a="$a" -v c="$c" -v d=$((N2 - N1)) -v m="${CACHE_SIM:-}" 'BEGIN {
      split(a, x, " "); split(c, y, " "); printf "%.0f", (y[1] - x[1]) / d
      if (m) printf " / %.1f", (y[2] - x[2]) / d }')"
  done
  printf '\n'
done
