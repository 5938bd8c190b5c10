#!/usr/bin/env bash
# Where the loop waits after an UNLINK of a big sorted set: the worst PING, the longest loop turn
# and, for the loop thread over that PING's wait, whether it was on a CPU, runnable (waiting for a
# core) or asleep, and in what (issue 38; bench/README.md, "The loop's long turn after UNLINK").
#   bench/unlink_turn.sh [--members N] [--load OPS] [--rounds N] [--sched] BEFORE_BIN [AFTER_BIN]
# (AFTER_BIN defaults to build/server/rbkv-server.)
#
# Each round, for before, after and Debian's redis-server in turn, on a fresh server without
# persistence: a sorted set of N members (default 2,000,000; lib.sh's gen_zadd, score 0);
# bench/loadgen at OPS requests a second (default 10,000; 80% GET, 20% SET over 100,000 keys,
# 4 connections, open loop) from 1 s before; CONFIG RESETSTAT; then a probe sends PING after PING
# on one connection (0.5 ms apart, each timed) and, 0.5 s in, UNLINK z on another, for 4 s in
# all. Meanwhile a second process samples every thread of the server every 2 ms:
# /proc/PID/task/TID/stat (state), schedstat (time on a CPU, time runnable waiting for one) and
# wchan. A row per run: the worst PING's wait and when it came after the UNLINK, rbkv's
# eventloop_duration_max and eventloop_cpu_max (ms; Redis 7.0 has neither), the load average,
# and for the main (loop) thread in that PING's window: the samples by state (R runnable or
# running, S asleep, D uninterruptible: a lock in the kernel such as mmap_lock in a page fault),
# its CPU time and run-queue wait there, and the wchans it slept in. Last, the lines: each
# server's worst PINGs and longest turns, sorted.
# --sched: also `perf sched record` (system-wide, 4.5 s) per run and, for the 3.5 s after the
# UNLINK, the loop's time on a CPU, off it while runnable, asleep, in D, and how often it was
# preempted right after it woke another of its own threads (the lazy-free thread), with what
# those preemptions waited (perf sched timehist --state -w). Needs perf (deps.sh bench).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MEMBERS=2000000 LOAD=10000 ROUNDS=3 SCHED=
USAGE="usage: $0 [--members N] [--load OPS] [--rounds N] [--sched] BEFORE_BIN [AFTER_BIN]"
while [ $# -gt 0 ]; do
  case $1 in
    --members) MEMBERS=$2; shift 2 ;;
    --load) LOAD=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --sched) SCHED=1; shift ;;
    -*) echo "$USAGE" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "$USAGE" >&2; exit 2; }
two_builds 1 "$@"
[ -z "$SCHED" ] || command -v perf >/dev/null || { echo "--sched needs perf" >&2; exit 1; }
WORK=$(mktemp -d)

# The probe: PINGs, the UNLINK, the sampler (a child process, so the two do not share a GIL).
# Prints "cmd_at T worst_ping_ms W at_ms A window START END".
cat >"$WORK/probe.py" <<'PY'
import os, socket, sys, time
port, pid, secs, out = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
def conn():
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s
sampler = os.fork()
if sampler == 0:
    f = open(out + ".samples", "w")
    end = time.monotonic() + secs + 0.7
    while time.monotonic() < end:
        t = time.monotonic()
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                st = open(f"/proc/{pid}/task/{tid}/stat").read()
                ss = open(f"/proc/{pid}/task/{tid}/schedstat").read().split()
                wc = open(f"/proc/{pid}/task/{tid}/wchan").read() or "-"
            except OSError:
                continue
            state = st[st.rindex(")") + 2:].split()[0]
            f.write(f"{t:.6f} {tid} {state} {ss[0]} {ss[1]} {wc}\n")
        time.sleep(0.002)
    os._exit(0)
a, b = conn(), conn()
pings, sent, t0 = [], False, time.monotonic()
while time.monotonic() - t0 < secs:
    if not sent and time.monotonic() - t0 > 0.5:
        b.sendall(b"UNLINK z\r\n")
        tcmd, sent = time.monotonic(), True
    s = time.monotonic()
    a.sendall(b"PING\r\n")
    a.recv(64)
    pings.append((s, time.monotonic()))
    time.sleep(0.0005)
b.recv(64)
os.waitpid(sampler, 0)
w = max(pings, key=lambda p: p[1] - p[0])
print(f"cmd_at {tcmd:.6f} worst_ping_ms {1000 * (w[1] - w[0]):.1f} at_ms {1000 * (w[0] - tcmd):.0f}"
      f" window {w[0]:.6f} {w[1]:.6f}")
PY

# window.py OUT TID START END: the thread's samples in [START, END] by state, its CPU time and
# run-queue wait there (schedstat), the wchans it slept in.
cat >"$WORK/window.py" <<'PY'
import collections, sys
out, tid, ws, we = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
rows = [l.split() for l in open(out + ".samples")]
rows = [r for r in rows if r[1] == tid and ws - 0.003 <= float(r[0]) <= we + 0.003]
if len(rows) < 2:
    print("(fewer than 2 samples: the sampler waited for a core too)")
    sys.exit(0)
a, z = rows[0], rows[-1]
states = dict(collections.Counter(r[2] for r in rows))
wchan = dict(collections.Counter(r[5] for r in rows if r[2] != "R"))
print(f"states {states} cpu {(int(z[3]) - int(a[3])) / 1e6:.1f} ms"
      f" runqueue {(int(z[4]) - int(a[4])) / 1e6:.1f} ms wchan {wchan}")
PY

# sched_summary DATA PID CMD_AT: the loop over the 3.5 s after the UNLINK (see --sched).
sched_summary() {
  local data=$1 pid=$2 at=$3
  perf sched timehist -i "$data" --state -w 2>/dev/null | awk -v c="$at" -v L="[$pid]" -v P="/$pid]" '
    $1 < c || $1 > c + 3.5 { next }
    index($0, L "  ") && index($0, "awakened: ") && index($0, P) { woke = $1; next }
    index($3, L) && NF >= 7 && $4 ~ /^[0-9.]+$/ {
      if (prev != "") { off[prev] += $4; if (self) { ns++; ws += $4 } }
      run += $6; prev = $7; self = ($7 == "R" && $1 - woke < 0.00002)
    }
    END { printf "sched: loop on a CPU %.0f ms, runnable off it %.0f ms, asleep %.0f ms, D %.0f ms;" \
                 " preempted right after waking its own thread %d times, %.0f ms waited\n",
                 run, off["R"], off["S"], off["D"], ns, ws }'
}

# run SERVER ROUND: one run; its row, and its worst PING and turn appended to WORK/SERVER.
run() {
  local s=$1 r=$2 port pid lg pf='' out res at w0 w1 turn cpu
  port=$(free_port)
  case $s in
    before) RBKV_BIN=$BEFORE start_rbkv "$port" --save '' ;;
    after) RBKV_BIN=$AFTER start_rbkv "$port" --save '' ;;
    redis) start_redis "$port" ;;
  esac
  pid=${BENCH_PIDS[-1]}
  load "$port" gen_zadd 0 "$MEMBERS" z m:
  [ "$(redis-cli -p "$port" zcard z)" = "$MEMBERS" ] || { echo "zset load failed on $port" >&2; exit 1; }
  "$LOADGEN" -p "$port" -c 4 -r "$LOAD" -d 3600 -k 100000 -t "80:GET __key__" \
    -t "20:SET __key__ value:0123456789" >/dev/null 2>&1 &
  lg=$!
  sleep 1
  redis-cli -p "$port" config resetstat >/dev/null
  out=$WORK/$s-$r
  if [ -n "$SCHED" ]; then
    perf sched record -o "$out.sched" -- sleep 4.5 >/dev/null 2>&1 &
    pf=$!
    sleep 0.2
  fi
  res=$(python3 "$WORK/probe.py" "$port" "$pid" 4 "$out")
  [ -z "$pf" ] || wait "$pf"
  kill "$lg"; wait "$lg" 2>/dev/null || true
  turn=$(info_of "$port" stats eventloop_duration_max)
  cpu=$(info_of "$port" stats eventloop_cpu_max)
  read -r _ at _ w _ a _ w0 w1 <<<"$res"
  printf '%-6s %d  worst PING %7.1f ms at +%s ms  turn %s / cpu %s ms  load %s\n' "$s" "$r" "$w" "$a" \
    "$(awk -v t="${turn:-}" 'BEGIN { print t == "" ? "-" : t / 1000 }')" \
    "$(awk -v t="${cpu:-}" 'BEGIN { print t == "" ? "-" : t / 1000 }')" "$(cut -d' ' -f1 /proc/loadavg)"
  echo "         loop thread in that wait: $(python3 "$WORK/window.py" "$out" "$pid" "$w0" "$w1")"
  [ -z "$SCHED" ] || { echo "         $(sched_summary "$out.sched" "$pid" "$at")"; rm -f "$out.sched"; }
  echo "$w ${turn:-0}" >>"$WORK/$s"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

echo "# UNLINK of a $MEMBERS-member sorted set under $LOAD GET/SET a second; $ROUNDS rounds"
for r in $(seq "$ROUNDS"); do
  for s in before after redis; do run "$s" "$r"; done
done
for s in before after redis; do
  echo "$s: worst PINGs (ms) $(cut -d' ' -f1 "$WORK/$s" | sort -n | tr '\n' ' ')"
  [ "$s" = redis ] ||
    echo "$s: longest turns (ms) $(awk '{ print $2 / 1000 }' "$WORK/$s" | sort -n | tr '\n' ' ')"
done
rm -rf "$WORK"
