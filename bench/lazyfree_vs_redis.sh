#!/usr/bin/env bash
# The loop stall of big deletions, with a concurrent PING probe, on two rbkv-server builds and
# Debian's redis-server; then what the lazy-free thread costs GET and SET.
#   bench/lazyfree_vs_redis.sh [--members N] [--keys N] [--requests N] [--rounds N] [--cases LIST]
#                              [--load OPS] [--stalls-only]
#                              BEFORE_BIN [AFTER_BIN]
# (AFTER_BIN defaults to build/server/rbkv-server.)
#
# Stalls. For each server and each case, on a fresh server without persistence:
#   unlink    UNLINK of a sorted set of N members (default 2,000,000), loaded by ZADDs of 1000;
#   kdelrange KDELRANGE PREFIX k: over N keys (default 1,000,000) (rbkv only: Redis has none;
#             its nearest single command is the FLUSHALL ASYNC below);
#   kdelttl   the same over N keys that each have a deadline (SET k v EX 1000000);
#   kdelcluster
#             KDELRANGE PREFIX {t}k: over N keys "{t}k:..." on a one-node cluster (cluster mode,
#             every slot assigned to the node), so every key is in its slot's key set too;
#   zremrank  ZREMRANGEBYRANK z 0 -2 of the sorted set, reloaded (all members but the last);
#   zremhalf  ZREMRANGEBYRANK z 0 N/2-1 of the sorted set, reloaded (half its members);
#   hdelrange HDELRANGE h PREFIX f: over a hash of N fields (N as for keys) and two fields that
#             stay (rbkv only: Redis has none);
#   flushall  FLUSHALL ASYNC of the same N keys.
# --cases "a b ..." runs only those cases; --rounds 0 skips the CPU part.
# The probe holds two connections open from bash (/dev/tcp, inline commands): it writes the
# command on one, then PINGs on the other one after another until the command's reply is there
# (read -t 0) and 200 ms more (a deletion that goes on in slices after its reply), timing each
# PING's answer ($EPOCHREALTIME, no fork) and keeping the worst: the stall. Beside it: the command's own time inside the server (INFO commandstats usec, after
# CONFIG RESETSTAT) and a PING's wait on the idle server just before.
# --load OPS: during each case bench/loadgen sends OPS requests a second (open loop, 4 connections,
# 80% GET, 20% SET over 100,000 keys key:%012d) from 1 s before the command until the probe ends,
# and the probe goes on 3 s after the reply instead of 200 ms: a stall that comes after the reply
# (the allocator taking back what another thread freed, at the loop's next allocations) shows.
# --stalls-only skips the CPU part.
# --appendonly: both rbkv servers run with the append-only log on (appendfsync everysec, in a
# fresh folder), so a range deletion also goes to the log (redis-server stays without).
#
# CPU per request. On fresh servers holding 100,000 keys, redis-benchmark -t set,get -c 50 -P 16
# -r 100000 -n REQUESTS (default 2,000,000) -d 16, and the server's user+system ticks over each run
# (/proc/PID/stat), as bench/README.md's other CPU figures: ticks per million requests, each
# server in turn, ROUNDS times (default 3), then the medians.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MEMBERS=2000000 KEYS=1000000 REQUESTS=2000000 ROUNDS=3 LOAD=0 STALLS_ONLY='' AOF=''
CASES="unlink zremrank zremhalf kdelrange kdelttl kdelcluster hdelrange flushall"
USAGE="usage: $0 [--members N] [--keys N] [--requests N] [--rounds N] [--cases LIST] [--load OPS] [--stalls-only] [--appendonly] BEFORE_BIN [AFTER_BIN]"
while [ $# -gt 0 ]; do
  case $1 in
    --cases) CASES=$2; shift 2 ;;
    --load) LOAD=$2; shift 2 ;;
    --stalls-only) STALLS_ONLY=1; shift ;;
    --appendonly) AOF=1; shift ;;
    --members) MEMBERS=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --requests) REQUESTS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    -*) echo "$USAGE" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "$USAGE" >&2; exit 2; }
two_builds "$([ "$LOAD" = 0 ] && echo 0 || echo 1)" "$@"
TAIL_S=0.2
[ "$LOAD" = 0 ] || TAIL_S=3

# start NAME PORT: the server NAME (before, after, redis) on PORT.
start() {
  local aof=()
  [ -z "$AOF" ] || aof=(--appendonly yes --dir "$(mktemp -d)")
  case $1 in
    before) RBKV_BIN=$BEFORE start_rbkv "$2" --save '' "${aof[@]}" ;;
    after) RBKV_BIN=$AFTER start_rbkv "$2" --save '' "${aof[@]}" ;;
    redis) start_redis "$2" ;;
  esac
}

load_zset() { # PORT
  awk -v n="$MEMBERS" 'BEGIN {
    for (i = 0; i < n; i += 1000) {
      m = (n - i < 1000) ? n - i : 1000
      printf "*%d\r\n$4\r\nZADD\r\n$1\r\nz\r\n", 2 + 2 * m
      for (j = i; j < i + m; j++) {
        s = j ""; e = "m:" j
        printf "$%d\r\n%s\r\n$%d\r\n%s\r\n", length(s), s, length(e), e
      }
    }
  }' | pipe_load "$1"
  [ "$(redis-cli -p "$1" zcard z)" = "$MEMBERS" ] || { echo "zset load failed on $1" >&2; exit 1; }
}

load_hash() { # PORT: h holds f:0000000 .. and "a", "z", which stay
  awk -v n="$KEYS" 'BEGIN {
    for (i = 0; i < n; i += 1000) {
      m = (n - i < 1000) ? n - i : 1000
      printf "*%d\r\n$4\r\nHSET\r\n$1\r\nh\r\n", 2 + 2 * m
      for (j = i; j < i + m; j++) {
        f = sprintf("f:%07d", j)
        printf "$%d\r\n%s\r\n$1\r\nv\r\n", length(f), f
      }
    }
    printf "*6\r\n$4\r\nHSET\r\n$1\r\nh\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nz\r\n$1\r\n1\r\n"
  }' | pipe_load "$1"
  [ "$(redis-cli -p "$1" hlen h)" = "$((KEYS + 2))" ] || { echo "hash load failed on $1" >&2; exit 1; }
}

load_keys() { # PORT [PREFIX [TTL_S]]: KEYS keys PREFIX%07d (PREFIX k: by default)
  awk -v n="$KEYS" -v p="${2:-k:}" -v ttl="${3:-}" 'BEGIN {
    for (i = 0; i < n; i++) {
      k = sprintf("%s%07d", p, i)
      if (ttl == "")
        printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", length(k), k
      else
        printf "*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n$2\r\nEX\r\n$%d\r\n%s\r\n",
          length(k), k, length(ttl), ttl
    }
  }' | pipe_load "$1"
  [ "$(redis-cli -p "$1" dbsize)" = "$KEYS" ] || { echo "key load failed on $1" >&2; exit 1; }
}

# start_one_node_cluster KIND: rbkv (KIND before or after) as a one-node cluster (lib.sh's
# start_cluster_nodes), every slot assigned to it, cluster_state:ok; its port in CLUSTER_PORTS.
start_one_node_cluster() {
  local bin=$BEFORE dir i
  [ "$1" = before ] || bin=$AFTER
  dir=$(mktemp -d)
  start_cluster_nodes "$dir" "$1" "$bin" 1
  redis-cli -p "${CLUSTER_PORTS[0]}" cluster addslotsrange 0 16383 >/dev/null
  for i in $(seq 100); do
    redis-cli -p "${CLUSTER_PORTS[0]}" cluster info | grep -q cluster_state:ok && return 0
    sleep 0.1
  done
  echo "one-node cluster on ${CLUSTER_PORTS[0]} not ok" >&2; exit 1
}

# ping_wait_ms FD: writes PING on FD, reads the answer; prints the wait in ms.
ping_wait_ms() {
  local t0 t1
  t0=$EPOCHREALTIME
  printf 'PING\r\n' >&"$1"
  IFS= read -r _ <&"$1"
  t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }'
}

ROW='%-10s %-7s %14s %14s %16s\n'
# stall CASE SERVER PORT COMMAND...: the row "case server usec_in_command ping_idle_ms
# ping_behind_ms".
stall() {
  local case=$1 server=$2 port=$3; shift 3
  local idle behind usec name lg=
  redis-cli -p "$port" config resetstat >/dev/null
  if [ "$LOAD" != 0 ]; then
    "$LOADGEN" -p "$port" -c 4 -r "$LOAD" -d 3600 -k 100000 -t "80:GET __key__" \
      -t "20:SET __key__ value:0123456789" >/dev/null 2>&1 &
    lg=$!
    sleep 1
  fi
  exec 3<>"/dev/tcp/127.0.0.1/$port" 4<>"/dev/tcp/127.0.0.1/$port"
  idle=$(ping_wait_ms 3)
  printf '%s\r\n' "$*" >&4
  local w end=""
  behind=0
  while :; do
    w=$(ping_wait_ms 3)
    behind=$(awk -v a="$behind" -v b="$w" 'BEGIN { print (b > a) ? b : a }')
    if [ -z "$end" ] && read -r -t 0 <&4; then
      IFS= read -r _ <&4
      end=$(awk -v t="$EPOCHREALTIME" -v d="$TAIL_S" 'BEGIN { printf "%.6f", t + d }')
    fi
    [ -n "$end" ] && awk -v t="$EPOCHREALTIME" -v e="$end" 'BEGIN { exit !(t > e) }' && break
  done
  exec 3>&- 4>&-
  [ -z "$lg" ] || { kill "$lg"; wait "$lg" 2>/dev/null || true; }
  name=$(echo "$1" | tr '[:upper:]' '[:lower:]')
  usec=$(redis-cli -p "$port" info commandstats | tr -d '\r' |
    awk -F'[:=,]' -v c="cmdstat_$name" '$1 == c { print $5 }')
  # shellcheck disable=SC2059
  printf "$ROW" "$case" "$server" "${usec:-?}" "$idle" "$behind"
}

echo "# stalls: $MEMBERS-member sorted set, $KEYS keys, load $LOAD requests/s"
# shellcheck disable=SC2059
printf "$ROW" case server usec_in_cmd ping_idle_ms ping_behind_ms
want() { case " $CASES " in *" $1 "*) return 0 ;; esac; return 1; }
for s in before after redis; do
  port=$(free_port); start "$s" "$port"
  if want unlink; then
    load_zset "$port"
    stall unlink "$s" "$port" UNLINK z
  fi
  if want zremrank; then
    load_zset "$port"
    stall zremrank "$s" "$port" ZREMRANGEBYRANK z 0 -2
    redis-cli -p "$port" del z >/dev/null
  fi
  if want zremhalf; then
    load_zset "$port"
    stall zremhalf "$s" "$port" ZREMRANGEBYRANK z 0 $((MEMBERS / 2 - 1))
    redis-cli -p "$port" del z >/dev/null
  fi
  if [ "$s" != redis ] && want kdelrange; then
    redis-cli -p "$port" flushall >/dev/null # what the load wrote
    load_keys "$port"
    stall kdelrange "$s" "$port" KDELRANGE PREFIX k:
  fi
  if [ "$s" != redis ] && want kdelttl; then
    redis-cli -p "$port" flushall >/dev/null
    load_keys "$port" k: 1000000
    stall kdelttl "$s" "$port" KDELRANGE PREFIX k:
  fi
  if [ "$s" != redis ] && want kdelcluster; then
    start_one_node_cluster "$s"
    load_keys "${CLUSTER_PORTS[0]}" "{t}k:"
    stall kdelcluster "$s" "${CLUSTER_PORTS[0]}" KDELRANGE PREFIX "{t}k:"
    stop_last
  fi
  if [ "$s" != redis ] && want hdelrange; then
    load_hash "$port"
    stall hdelrange "$s" "$port" HDELRANGE h PREFIX f:
    redis-cli -p "$port" del h >/dev/null
  fi
  if want flushall; then
    redis-cli -p "$port" flushall >/dev/null
    load_keys "$port"
    stall flushall "$s" "$port" FLUSHALL ASYNC
  fi
  stop_last
done
[ "$ROUNDS" -gt 0 ] || exit 0

[ -z "$STALLS_ONLY" ] || exit 0

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
CPU_OUT=$(mktemp)
trap 'bench_cleanup; rm -f "$CPU_OUT"' EXIT
echo
echo "# CPU: server ticks (user+system, 1/$(getconf CLK_TCK) s) per million requests, -P 16, 50 clients"
printf '%-5s %-5s %-7s %10s %10s\n' round test server ticks_per_M ops_per_s
for r in $(seq "$ROUNDS"); do
  for t in set get; do
    for s in before after redis; do
      port=$(free_port); start "$s" "$port"
      pid=${BENCH_PIDS[-1]}
      redis-benchmark -p "$port" -t set -c 50 -P 16 -r 100000 -n 400000 -d 16 -q >/dev/null
      t0=$(cpu_ticks "$pid")
      ops=$(redis-benchmark -p "$port" -t "$t" -c 50 -P 16 -r 100000 -n "$REQUESTS" -d 16 --csv |
        csv_rps)
      t1=$(cpu_ticks "$pid")
      printf '%-5s %-5s %-7s %10s %10s\n' "$r" "$t" "$s" \
        "$(awk -v d=$((t1 - t0)) -v n="$REQUESTS" 'BEGIN { printf "%.0f", d * 1000000 / n }')" "$ops" |
        tee -a "$CPU_OUT"
      stop_last
    done
  done
done
echo
echo "# medians over $ROUNDS rounds"
for t in set get; do
  for s in before after redis; do
    awk -v t="$t" -v s="$s" '$2 == t && $3 == s { print $4 }' "$CPU_OUT" | sort -g |
      awk -v t="$t" -v s="$s" '{ v[NR] = $1 } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%-5s %-7s %10s\n", t, s, m }'
  done
done
