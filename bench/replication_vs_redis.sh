#!/usr/bin/env bash
# Replication of rbkv-server against Debian's redis-server 7, side by side in one run.
#   bench/replication_vs_redis.sh [--keys N] [--repeats R] [--requests M] [--out DIR]
#   (or the same through KEYS=, REPEATS=, REQUESTS=; defaults 1,000,000 keys, 3 repeats,
#   1,000,000 SETs per throughput run)
# Three measures, each repeated R times with rbkv and redis taking turns (the first server of a
# round alternates), so drift on a noisy machine hits both:
#   1. full sync: a primary of each kind holds N string keys (16-byte keys and values, every tenth
#      with a one-day TTL) and 8 sorted sets of N/100 members, loaded with redis-cli --pipe from
#      the same generated protocol; a fresh, empty replica of the same kind is sent
#      `REPLICAOF 127.0.0.1 PORT` and timed until its INFO replication says
#      master_link_status:up and its DBSIZE equals the primary's. Time as the client sees it,
#      polled every 10 ms (so +-10 ms, redis-cli's start included). Ratio rbkv/redis: lower is better.
#   2. SET throughput: redis-benchmark -t set -P 16 -c 50 -r 1000000 -d 16 -n M against four
#      primaries holding the same data: rbkv alone, rbkv with one replica, redis alone, redis with
#      one replica ("alone" servers never had a replica, so they keep no backlog). Ratios
#      rbkv+replica / redis+replica (goal >= 1.0) and rbkv+replica / rbkv alone (goal >= 0.9).
#   3. replication lag during each run with a replica: every 100 ms (plus the time of the two INFO
#      calls) the primary's master_repl_offset minus the offset= of its slave0 line (what the
#      replica acknowledged: replicas of both kinds send REPLCONF ACK once a second, so this lag
#      is about a second of writes), and minus the replica's own master_repl_offset (what it has
#      applied; the replica is read first, so this errs high by the writes between the two calls).
#      The same sampler runs against the servers alone, so every run carries the same observer.
# Both kinds run in their own temp dirs with --save "" (redis also --appendonly no) and
# repl-diskless-sync-delay 0, so the 5 s default delay does not dominate the sync; the other
# replication settings are the defaults: the replicas of both kinds write the stream to a temp
# file in their dir and load it from there (redis: repl-diskless-load disabled;
# REDIS_DISKLESS_LOAD=on-empty-db makes redis's load from the socket, which rbkv's cannot).
# Writes into DIR, by default a new build-bench/results-repl-YYYYmmdd-HHMMSS/ (git-ignored):
#   summary.txt     what this prints          fullsync.csv    one row per sync
#   throughput.csv  one row per run           lag.csv         every lag sample
#   machine.txt     the machine and settings  logs/           every server's log
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
KEYS=${KEYS:-1000000} REPEATS=${REPEATS:-3} REQUESTS=${REQUESTS:-1000000}
OUT=$ROOT/build-bench/results-repl-$(date -u +%Y%m%d-%H%M%S)
while [ $# -gt 0 ]; do
  case $1 in
    --keys) KEYS=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --requests) REQUESTS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--keys N] [--repeats R] [--requests M] [--out DIR]" >&2; exit 2 ;;
  esac
done
ZSETS=8 ZMEMBERS=$((KEYS / 100 > 0 ? KEYS / 100 : 1))
REDIS_DISKLESS_LOAD=${REDIS_DISKLESS_LOAD:-disabled}
SYNC_TIMEOUT=${SYNC_TIMEOUT:-600} # seconds before a sync that never finishes fails the run
ensure_built
mkdir -p "$OUT/logs"

# The body runs in a subshell piped through tee, so its trap is the one that cleans up.
main() {
export LC_ALL=C # read -N counts bytes
WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

die() { echo "error: $*" >&2; exit 1; }
now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
cli() { local port=$1; shift; redis-cli -p "$port" "$@"; }
repl_field() { # PORT FIELD: a field of INFO replication
  cli "$1" info replication | tr -d '\r' | awk -F: -v f="$2" '$1 == f { print $2 }'
}
ack_offset() { # PORT: offset= of the primary's slave0 line
  cli "$1" info replication | tr -d '\r' | sed -n 's/^slave0:.*offset=\([0-9-]*\).*/\1/p'
}

# The polls below talk RESP over bash's /dev/tcp on a connection kept open, not through a
# redis-cli per call: a fork per poll would cost milliseconds of the two cores it measures.
# conn PORT: opens a connection, its fd in FD. req FD ARGS...: one command; prints the reply
# (integer, status or bulk body; \r removed), returns 1 on an error reply.
conn() { exec {FD}<>"/dev/tcp/127.0.0.1/$1"; }
req() {
  local fd=$1 a line body; shift
  line="*$#"$'\r\n'
  for a in "$@"; do line+="\$${#a}"$'\r\n'"$a"$'\r\n'; done
  printf '%s' "$line" >&"$fd"
  IFS= read -r line <&"$fd"; line=${line%$'\r'}
  case $line in
    '$-1') echo ;;
    '$'*) IFS= read -r -N $((${line#?} + 2)) body <&"$fd"; printf '%s\n' "${body//$'\r'/}" ;;
    -*) echo "${line#?}"; return 1 ;;
    *) echo "${line#?}" ;;
  esac
}
field() { sed -n "s/^$1://p"; } # field NAME <<< "$(req FD info replication)"

# launch KIND NAME: starts a server of KIND (rbkv|redis) in its own dir on a free port; sets
# PORT and PID. Logs at notice level, so each sync leaves its steps in logs/NAME.log.
launch() {
  local kind=$1 name=$2 dir=$WORK/$2
  mkdir -p "$dir"; PORT=$(free_port)
  if [ "$kind" = rbkv ]; then
    "$RBKV_BIN" --port "$PORT" --dir "$dir" --save '' --repl-diskless-sync-delay 0 \
      --loglevel notice >>"$OUT/logs/$name.log" 2>&1 &
  else
    redis-server --port "$PORT" --dir "$dir" --save '' --appendonly no \
      --repl-diskless-sync-delay 0 --repl-diskless-load "$REDIS_DISKLESS_LOAD" \
      --loglevel notice >>"$OUT/logs/$name.log" 2>&1 &
  fi
  PID=$!; BENCH_PIDS+=("$PID")
  wait_ping "$PORT" || die "$name did not start (logs/$name.log)"
}
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# The data, as one protocol file both kinds load.
gen() {
  awk -v n="$KEYS" -v zs="$ZSETS" -v zm="$ZMEMBERS" 'BEGIN {
    for (i = 0; i < n; i++)
      if (i % 10 == 0)
        printf "*5\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$16\r\nvalue:%010d\r\n$2\r\nEX\r\n$5\r\n86400\r\n", i, i
      else
        printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$16\r\nvalue:%010d\r\n", i, i
    for (z = 0; z < zs; z++)
      for (i = 0; i < zm; i += 1000) {
        m = zm - i < 1000 ? zm - i : 1000
        printf "*%d\r\n$4\r\nZADD\r\n$7\r\nzset:%02d\r\n", 2 + 2 * m, z
        for (j = i; j < i + m; j++) printf "$%d\r\n%d\r\n$16\r\nmem:%012d\r\n", length(j ""), j, j
      } }'
}
gen >"$WORK/data.resp"
load() { # PORT
  cli "$1" --pipe <"$WORK/data.resp" | grep -q "errors: 0" || die "loading into port $1 failed"
  [ "$(cli "$1" dbsize)" = $((KEYS + ZSETS)) ] || die "port $1 holds $(cli "$1" dbsize) keys, expected $((KEYS + ZSETS))"
}

# sync_replica REPLICA_PORT PRIMARY_PORT: sends REPLICAOF and waits until the link is up and the
# replica holds as many keys as the primary; prints the seconds it took.
sync_replica() {
  local rport=$1 pport=$2 want t0 deadline info
  want=$(cli "$pport" dbsize)
  conn "$rport"
  t0=$(now); deadline=$(( ${t0%.*} + SYNC_TIMEOUT ))
  [ "$(req "$FD" replicaof 127.0.0.1 "$pport")" = OK ] || die "REPLICAOF on port $rport failed"
  while :; do
    info=$(req "$FD" info replication) || die "INFO on port $rport: $info"
    if [ "$(field master_link_status <<<"$info")" = up ] && [ "$(req "$FD" dbsize)" = "$want" ]; then
      elapsed "$t0" "$(now)"; exec {FD}>&-; return
    fi
    [ "${EPOCHREALTIME%.*}" -lt "$deadline" ] || die "replica on port $rport not in sync after ${SYNC_TIMEOUT}s"
    sleep 0.01
  done
}

# stats FILE COLUMN: "n min median p90 p99 max" (nearest rank) of a numeric column.
stats() {
  awk -v c="$2" 'NR > 1 { print $c }' FS=, "$1" | sort -g | awk '
    { v[NR] = $1 }
    function at(p,  k) { k = int(p * NR + 0.999999); if (k < 1) k = 1; return v[k] }
    END { if (NR == 0) { print "0 - - - - -"; exit }
          printf "%d %s %s %s %s %s\n", NR, v[1], at(0.5), at(0.9), at(0.99), v[NR] }'
}
median() { # of the numbers on stdin; of an even count, the mean of the middle two
  tr ' ' '\n' | sed '/^$/d' | sort -g |
    awk '{ v[NR] = $1 } END { if (!NR) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
range() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { print a "-" b }'; }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
  echo "machine: $(nproc) vCPU, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "kernel: $(uname -r)  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "rbkv: $RBKV_BIN  redis: $(redis-server --version | cut -d' ' -f3), repl-diskless-load $REDIS_DISKLESS_LOAD"
  echo "keys: $KEYS strings (every tenth with a TTL) + $ZSETS sorted sets of $ZMEMBERS members; repeats: $REPEATS; SETs per run: $REQUESTS"
} >"$OUT/machine.txt"
cat "$OUT/machine.txt"

# ---- 1. full sync ----
declare -A PRIM_PORT
for kind in rbkv redis; do
  launch "$kind" "$kind-primary"; PRIM_PORT[$kind]=$PORT
  load "$PORT"
done
echo
echo "1. full sync of $((KEYS + ZSETS)) keys to a fresh replica (seconds)"
echo "kind,round,seconds" >"$OUT/fullsync.csv"
declare -A SYNC_TIMES
for ((r = 1; r <= REPEATS; r++)); do
  order="rbkv redis"; [ $((r % 2)) = 0 ] && order="redis rbkv"
  for kind in $order; do
    launch "$kind" "$kind-replica-sync$r"
    s=$(sync_replica "$PORT" "${PRIM_PORT[$kind]}")
    stop "$PID"
    echo "$kind,$r,$s" >>"$OUT/fullsync.csv"
    SYNC_TIMES[$kind]="${SYNC_TIMES[$kind]:-} $s"
    printf '  round %d %-6s %8s s\n' "$r" "$kind" "$s"
  done
done
printf '%-7s %10s %10s   %s\n' kind "min s" "median s" "each run"
declare -A SYNC_MED
for kind in rbkv redis; do
  SYNC_MED[$kind]=$(printf '%.3f' "$(median <<<"${SYNC_TIMES[$kind]}")")
  printf '%-7s %10s %10s  %s\n' $kind "$(range <<<"${SYNC_TIMES[$kind]}" | cut -d- -f1)" \
    "${SYNC_MED[$kind]}" "${SYNC_TIMES[$kind]}"
done
printf 'ratio rbkv/redis of the medians: %s (lower is better)\n' \
  "$(ratio "${SYNC_MED[rbkv]}" "${SYNC_MED[redis]}")"

# ---- 2 and 3. SET throughput, and lag while a replica follows ----
# The phase-1 primaries get a replica that stays for the whole phase; two fresh primaries with
# the same data stay alone.
declare -A REP_PORT
for kind in rbkv redis; do
  launch "$kind" "$kind-replica"; REP_PORT[$kind]=$PORT
  sync_replica "$PORT" "${PRIM_PORT[$kind]}" >/dev/null
  launch "$kind" "$kind-alone"; PRIM_PORT[$kind-alone]=$PORT
  load "$PORT"
done

# sampler CONFIG ROUND PRIMARY [REPLICA]: every 100 ms, a lag.csv row when there is a replica.
sampler() {
  local config=$1 round=$2 p=$3 rp=${4:-} pfd rfd="" applied info off ack next
  conn "$p"; pfd=$FD
  [ -n "$rp" ] && { conn "$rp"; rfd=$FD; }
  next=${EPOCHREALTIME/./}
  while :; do
    if [ -n "$rfd" ]; then
      applied=$(req "$rfd" info replication | field master_repl_offset)
      info=$(req "$pfd" info replication)
      off=$(field master_repl_offset <<<"$info")
      ack=$(sed -n 's/^slave0:.*offset=\([0-9-]*\).*/\1/p' <<<"$info")
      [ -n "$off" ] && [ -n "$ack" ] && [ -n "$applied" ] &&
        echo "$config,$round,$EPOCHREALTIME,$((off - ack)),$((off - applied))" >>"$OUT/lag.csv"
    else
      req "$pfd" info replication >/dev/null
    fi
    # The next tick 100 ms after the last one, not after this sample's work.
    next=$((next + 100000)); local wait_us=$((next - ${EPOCHREALTIME/./}))
    [ "$wait_us" -gt 0 ] && sleep "$(printf '0.%06d' "$wait_us")"
  done
}

# run CONFIG ROUND: one redis-benchmark run against CONFIG's primary, sampled; prints ops/s.
run() {
  local config=$1 round=$2 kind=${1%%-*} p rp="" spid ops
  if [[ $config == *-alone ]]; then p=${PRIM_PORT[$config]}; else p=${PRIM_PORT[$kind]} rp=${REP_PORT[$kind]}; fi
  sampler "$config" "$round" "$p" "$rp" & spid=$!; BENCH_PIDS+=("$spid")
  ops=$(redis-benchmark -p "$p" -t set -c 50 -P 16 -r 1000000 -d 16 -n "$REQUESTS" -q --csv |
    csv_rps)
  kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null || true
  [ -n "$ops" ] || die "redis-benchmark against $config gave no figure"
  ops=$(printf '%.0f' "$ops")
  if [ -n "$rp" ]; then # the replica must catch up and agree before the next run
    local deadline=$(( $(date +%s) + 30 ))
    until [ "$(ack_offset "$p")" = "$(repl_field "$p" master_repl_offset)" ] &&
          [ "$(cli "$rp" dbsize)" = "$(cli "$p" dbsize)" ]; do
      [ "$(date +%s)" -lt "$deadline" ] || die "$config: replica did not catch up within 30 s"
      sleep 0.1
    done
  fi
  echo "$ops"
}

echo
echo "2. SET throughput, redis-benchmark -t set -P 16 -c 50 -r 1000000 -d 16 -n $REQUESTS (ops/s)"
echo "config,round,ops" >"$OUT/throughput.csv"
echo "config,round,time,ack_lag_bytes,applied_lag_bytes" >"$OUT/lag.csv"
declare -A OPS
for ((r = 1; r <= REPEATS; r++)); do
  order="rbkv-alone redis-alone rbkv-replica redis-replica"
  [ $((r % 2)) = 0 ] && order="redis-alone rbkv-alone redis-replica rbkv-replica"
  for config in $order; do
    o=$(run "$config" "$r")
    echo "$config,$r,$o" >>"$OUT/throughput.csv"
    OPS[$config]="${OPS[$config]:-} $o"
    printf '  round %d %-14s %12s\n' "$r" "$config" "$o"
  done
done
printf '%-14s %12s %19s   %s\n' config "median ops/s" "range" "each run"
declare -A MED
for config in rbkv-alone rbkv-replica redis-alone redis-replica; do
  MED[$config]=$(printf '%.0f' "$(median <<<"${OPS[$config]}")")
  printf '%-14s %12s %19s  %s\n' "$config" "${MED[$config]}" "$(range <<<"${OPS[$config]}")" "${OPS[$config]}"
done
printf 'rbkv+replica / redis+replica: %s (goal >= 1.0)\n' "$(ratio "${MED[rbkv-replica]}" "${MED[redis-replica]}")"
printf 'rbkv+replica / rbkv alone:    %s (goal >= 0.9)\n' "$(ratio "${MED[rbkv-replica]}" "${MED[rbkv-alone]}")"
printf 'redis+replica / redis alone:  %s\n' "$(ratio "${MED[redis-replica]}" "${MED[redis-alone]}")"

echo
echo "3. replication lag during the runs with a replica (bytes; primary's master_repl_offset minus ...)"
printf '%-7s %-26s %8s %11s %11s %11s %11s %11s\n' kind "" samples min median p90 p99 max
for kind in rbkv redis; do
  grep -e '^config' -e "^$kind-replica," "$OUT/lag.csv" >"$WORK/lag-$kind.csv"
  for col in 4 5; do
    what="slave0 offset= (acked)"; [ $col = 5 ] && what="replica's offset (applied)"
    read -r n mn md p9 p99 mx < <(stats "$WORK/lag-$kind.csv" $col)
    printf '%-7s %-26s %8s %11s %11s %11s %11s %11s\n' $kind "$what" "$n" "$mn" "$md" "$p9" "$p99" "$mx"
  done
done
echo
echo "results in $OUT"
}
main 2>&1 | tee "$OUT/summary.txt"; exit # on this line: bash reads a script as it runs it
