#!/usr/bin/env bash
# Tail latency of rbkv-server against Debian's redis-server under a fixed-rate mixed workload with
# disturbances, in one run, the two servers alternating.
#   bench/latency_vs_redis.sh [--quick] [--rounds N] [--rate OPS] [--seconds S] [--out DIR]
#
# Each round, for rbkv then redis-server, on a fresh server (persistence off, its own --dir):
#   data     KEYS string keys key:%012d (SET, 16-byte values; default 1,000,000), the same strings as
#            members of the sorted set zkeys (both servers hold it, so both hold the same data),
#            three sorted sets big:1..3 of BIG members (default 2,000,000), and VOLATILE keys vol:%d
#            (default 500,000) loaded just before the run with one deadline (SET ... PXAT).
#   load     bench/loadgen open loop (-r): RATE requests per second in all (default 10,000) over
#            8 connections for S seconds (default 60), each request timed from the moment it was
#            due, so a stall is charged to every request due during it (no coordinated omission):
#            78% GET, 19% SET of random keys, 2% ZADD zkeys 0 KEY, 1% a range of 100 keys from a
#            random one (rbkv KRANGE [KEY + BYLEX LIMIT 0 100, Redis ZRANGEBYLEX zkeys [KEY + LIMIT 0 100).
#   events   at 10% of S: UNLINK big:1; at 25%: the VOLATILE keys' deadline passes (a mass expiry);
#            at 40%: BGSAVE; at 55%: a fresh replica of the same server sends REPLICAOF (a full
#            sync, each server's default repl-diskless-sync); at 75% and 90%: UNLINK big:2, big:3.
# Writes into DIR (default bench/results): latency_mixed.csv (loadgen's lines, one per server,
# round and command: p50/p99/p99.9/max in microseconds), latency_timeline.csv (per 100 ms of due
# time: requests and the slowest), latency_events.csv (when each event was sent, and
# latest_fork_usec after the BGSAVE and the sync), latency_mixed.md (the table printed at the end)
# and latency_mixed.png (bench/latency.gp); latency_loop.txt: per server and round, rbkv's INFO
# stats eventloop_* and allocator_trim* (what the loop itself spent, the longest turn on the wall
# and CPU clocks: docs/operations.md) and both servers' LATENCY LATEST (threshold 2 ms), each
# reset when the run starts. --quick: 100,000 keys, 200,000-member big sets,
# 50,000 volatile keys, 2,000 requests per second for 15 s, one round.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh  # it reads RBKV_BIN and owns BENCH_PIDS
. "$BENCH_DIR/lib.sh"

KEYS=1000000 BIG=2000000 VOLATILE=500000 RATE=10000 SECS=60 ROUNDS=2 CONNS=8 QUICK=
OUT=$BENCH_DIR/results
while [ $# -gt 0 ]; do
  case $1 in
    --quick) QUICK=1 KEYS=100000 BIG=200000 VOLATILE=50000 RATE=2000 SECS=15 ROUNDS=1 CONNS=4; shift ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --seconds) SECS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--quick] [--rounds N] [--rate OPS] [--seconds S] [--out DIR]" >&2; exit 2 ;;
  esac
done
command -v redis-server >/dev/null || { echo "no redis-server on PATH" >&2; exit 1; }
LOADGEN=${LOADGEN:-$ROOT/build/bench/loadgen}
if [ ! -x "$RBKV_BIN" ] || [ ! -x "$LOADGEN" ]; then ensure_built; fi
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

now_ms() { local t=${EPOCHREALTIME/./}; echo $(( t / 1000 )); }
sleep_until() { # MS
  local d=$(( $1 - $(now_ms) ))
  [ "$d" -le 0 ] || sleep "$(awk -v d="$d" 'BEGIN { printf "%.3f", d / 1000 }')"
}
# The volatile keys, all due at PXAT MS.
gen_volatile() { # N MS
  awk -v n="$1" -v t="$2" 'BEGIN {
    for (i = 0; i < n; i++) {
      k = "vol:" i
      printf "*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n$4\r\nPXAT\r\n$%d\r\n%s\r\n", length(k), k, length(t), t
    } }'
}
at() { # T0 PERCENT: the time PERCENT% into the run that starts at T0, in ms (bash: awk's %d is 32-bit)
  echo $(( $1 + $2 * SECS * 10 ))
}

# The events of one run, in the background: LABEL T0 PORT REPLICA_PORT.
events() {
  local label=$1 t0=$2 port=$3 rport=$4 t
  ev() { local d=$(( $(now_ms) - t0 )); echo "$label,$(( d / 1000 )).$(( d % 1000 / 100 )),$1" >>"$OUT/latency_events.csv"; }
  sleep_until "$(at "$t0" 10)"; ev "UNLINK big:1"; redis-cli -p "$port" unlink big:1 >/dev/null
  sleep_until "$(at "$t0" 25)"; ev "expiry of $VOLATILE keys"
  sleep_until "$(at "$t0" 40)"; ev "BGSAVE"; redis-cli -p "$port" bgsave >/dev/null
  t=$(at "$t0" 55)
  while [ "$(info_of "$port" persistence rdb_bgsave_in_progress)" != 0 ] && [ "$(now_ms)" -lt "$t" ]; do sleep 0.1; done
  echo "$label,,bgsave latest_fork_usec=$(info_of "$port" stats latest_fork_usec)" >>"$OUT/latency_events.csv"
  sleep_until "$t"; ev "full sync"; redis-cli -p "$rport" replicaof 127.0.0.1 "$port" >/dev/null
  sleep_until "$(at "$t0" 75)"; ev "UNLINK big:2"; redis-cli -p "$port" unlink big:2 >/dev/null
  sleep_until "$(at "$t0" 90)"; ev "UNLINK big:3"; redis-cli -p "$port" unlink big:3 >/dev/null
}

rm -f "$OUT/latency_mixed.csv" "$OUT/latency_timeline.csv" "$OUT/latency_events.csv" "$OUT/latency_loop.txt"
"$LOADGEN" -C >"$OUT/latency_mixed.csv"
echo "label,second,requests,max_us" >"$OUT/latency_timeline.csv"
echo "label,second,event" >"$OUT/latency_events.csv"
{
  echo "run: bench/latency_vs_redis.sh${QUICK:+ --quick} (rounds $ROUNDS, rate $RATE, $SECS s)"
  echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- server proto bench || echo +dirty)"
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "cpu: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo) x $(nproc)"
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "redis-server: $(redis-server --version | awk '{ print $3 }')"
  echo "keys: $KEYS; big: $BIG; volatile: $VOLATILE; connections: $CONNS"
} >"$OUT/latency_machine.txt"

for round in $(seq "$ROUNDS"); do
  for kind in rbkv redis; do
    label=$kind.$round
    port=$(free_port); mkdir -p "$WORK/$label" "$WORK/$label.replica"
    start_kind "$kind" "$port" "$WORK/$label" --latency-monitor-threshold 2
    echo "$label: loading" >&2
    load "$port" gen_set 0 "$KEYS"
    load "$port" gen_zadd 0 "$KEYS"
    for b in 1 2 3; do load "$port" gen_zadd 0 "$BIG" "big:$b" m:; done
    rport=$(free_port)
    start_kind "$kind" "$rport" "$WORK/$label.replica"
    # The run starts MARGIN ms after the volatile keys' load began; they expire 25% into it.
    margin=$(( VOLATILE / 20 + 3000 ))
    t0=$(( $(now_ms) + margin ))
    load "$port" gen_volatile "$VOLATILE" "$(at "$t0" 25)"
    [ "$(now_ms)" -lt "$t0" ] || { echo "loading the volatile keys took over $margin ms" >&2; exit 1; }
    if [ "$kind" = rbkv ]; then range="KRANGE [__key__ + BYLEX LIMIT 0 100"
    else range="ZRANGEBYLEX zkeys [__key__ + LIMIT 0 100"; fi
    sleep_until "$t0"
    redis-cli -p "$port" config resetstat >/dev/null
    redis-cli -p "$port" latency reset >/dev/null
    events "$label" "$t0" "$port" "$rport" &
    ev_pid=$!
    echo "$label: running $SECS s at $RATE requests/s" >&2
    "$LOADGEN" -p "$port" -c "$CONNS" -r "$RATE" -d "$SECS" -k "$KEYS" -l "$label" -S \
      -T "$OUT/latency_timeline.csv" -t "78:GET __key__" -t "19:SET __key__ value:0123456789" \
      -t "2:ZADD zkeys 0 __key__" -t "1:$range" | tee -a "$OUT/latency_mixed.csv" >&2
    wait "$ev_pid"
    for _ in $(seq 600); do
      [ "$(info_of "$rport" replication master_link_status)" = up ] && break
      sleep 0.1
    done
    echo "$label,,sync latest_fork_usec=$(info_of "$port" stats latest_fork_usec) link=$(info_of "$rport" replication master_link_status) expired=$(info_of "$port" stats expired_keys)" >>"$OUT/latency_events.csv"
    # What the loop itself spent (rbkv's INFO stats eventloop_*, allocator_trim*) and the latency
    # monitor's events of 2 ms or more, over the run (both reset at its start).
    {
      echo "$label"
      # Redis 7.0 has none of these fields: no lines, not a failure.
      redis-cli -p "$port" info stats | tr -d '\r' | { grep -E '^(eventloop|allocator_trim)' || true; } | sed 's/^/  /'
      redis-cli -p "$port" latency latest | paste -d' ' - - - - | sed 's/^/  latency: /'
    } >>"$OUT/latency_loop.txt"
    stop_last; stop_last
    rm -rf "${WORK:?}/$label" "${WORK:?}/$label.replica"
  done
done

# The table: per command and server, each figure in ms as the range over the rounds.
table() {
  awk -F, '
    NR == 1 || $1 !~ /\// { next }
    {
      split($1, a, "/"); split(a[1], b, "."); kind = b[1]; cmd = a[2]
      if (cmd == "KRANGE" || cmd == "ZRANGEBYLEX") cmd = "range100"
      if (!(cmd in seen)) { seen[cmd] = 1; order[++n] = cmd }
      for (f = 9; f <= 12; f++) {
        k = kind SUBSEP cmd SUBSEP f
        v = $f / 1000
        if (!(k in lo) || v < lo[k]) lo[k] = v
        if (!(k in hi) || v > hi[k]) hi[k] = v
      }
      if ($6 > 0) errors[kind] += $6
    }
    function r(kind, cmd, f,   k) {
      k = kind SUBSEP cmd SUBSEP f
      if (!(k in lo)) return "-"
      return lo[k] == hi[k] ? sprintf("%.2f", lo[k]) : sprintf("%.2f-%.2f", lo[k], hi[k])
    }
    END {
      print "| command | p50 rbkv | p50 redis | p99 rbkv | p99 redis | p99.9 rbkv | p99.9 redis | max rbkv | max redis |"
      print "|---|---|---|---|---|---|---|---|---|"
      for (i = 1; i <= n; i++) {
        c = order[i]; line = "| " c
        for (f = 9; f <= 12; f++) line = line " | " r("rbkv", c, f) " | " r("redis", c, f)
        print line " |"
      }
      for (kind in errors) printf "\n%s: %d error replies\n", kind, errors[kind]
    }' "$OUT/latency_mixed.csv"
}
{
  echo "Latency in ms (range over the rounds), from the moment each request was due:"
  echo
  table
  echo
  grep -h latest_fork_usec "$OUT/latency_events.csv" | sed 's/^/    /'
  echo
  echo "rbkv's longest loop turn per round, wall clock and the loop thread's CPU (INFO stats), in ms:"
  echo
  awk -F: '/^rbkv/ { r = $1 } r && /eventloop_duration_max/ { w[r] = $2 } r && /eventloop_cpu_max/ { c[r] = $2 }
    r && /allocator_trim_usec_max/ { t[r] = $2 }
    END { for (r in w) printf "    %s: wall %.1f, cpu %.1f, slowest allocator trim %.1f\n", r, w[r] / 1000, c[r] / 1000, t[r] / 1000 }' \
    "$OUT/latency_loop.txt" | sort
} | tee "$OUT/latency_mixed.md"
if command -v gnuplot >/dev/null; then
  gnuplot -e "dir='$OUT'" "$BENCH_DIR/latency.gp"
else
  echo "no gnuplot: no picture (scripts/deps.sh bench installs it)" >&2
fi
