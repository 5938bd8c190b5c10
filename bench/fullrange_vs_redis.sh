#!/usr/bin/env bash
# A full range of 1,000,000 keys read by one client: rbkv's streamed KRANGE against Redis's ZRANGE.
#   bench/fullrange_vs_redis.sh [--rounds N] [--keys N]
#
# rbkv holds --keys keys key:000000000000 ... (16-byte values val:...); redis-server holds the same
# strings as the members of one sorted set z (score 0). The two replies are the same bytes (an
# array of 16-byte bulks, 23 MB for a million), so one reader serves both: a Python loop that
# sends the command and receives until it has the reply's whole length, timed from the send to
# the last byte. Each round times, in turn:
#   rbkv   KRANGE - + BYLEX                 streamed (server/core/stream.c)
#   redis  ZRANGE z 0 -1                    built whole in the output buffer, then written
#   rbkv   MULTI, KRANGE - + BYLEX, EXEC    not streamed (a transaction's replies never are): the
#                                           whole reply in memory, as before streaming
# and reports each one's range over --rounds rounds (default 5). Memory: the growth of each
# server's peak RSS during the read (VmHWM after resetting it through /proc/PID/clear_refs,
# less VmRSS before); rbkv's used_memory does not count client output buffers, Redis's does,
# so RSS is the one measure that compares.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ROUNDS=5
KEYS=1000000
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--keys N]" >&2; exit 2 ;;
  esac
done
ensure_built

gen_set() {
  awk -v n="$KEYS" 'BEGIN {
    for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$16\r\nval:%012d\r\n", i, i }'
}
gen_zadd() {
  awk -v n="$KEYS" 'BEGIN {
    for (i = 0; i < n; i += 1000) {
      m = n - i < 1000 ? n - i : 1000
      printf "*%d\r\n$4\r\nZADD\r\n$1\r\nz\r\n", 2 + 2 * m
      for (j = i; j < i + m; j++) printf "$1\r\n0\r\n$16\r\nkey:%012d\r\n", j
    } }'
}
load() { # PORT GENERATOR
  "$2" | redis-cli -p "$1" --pipe | grep -q "errors: 0" || { echo "loading into $1 failed" >&2; exit 1; }
}

# read_reply PORT PID PREFIX COMMAND...: "seconds peak-RSS-growth-KB" for one whole reply of the
# KEYS keys, which must start with PREFIX's bytes (the EXEC reply has one more array header).
read_reply() {
  python3 - "$@" <<'PY'
import socket, sys, time
port, pid, prefix, keys = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
args = sys.argv[5:]
def status(field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
req = b""
for cmd in " ".join(args).split(";"):
    words = cmd.split()
    req += b"*%d\r\n" % len(words) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w.encode()) for w in words)
head = (b"+OK\r\n+QUEUED\r\n*1\r\n" if prefix == "exec" else b"") + b"*%d\r\n" % keys
want = len(head) + 23 * keys
s = socket.create_connection(("127.0.0.1", port))
with open(f"/proc/{pid}/clear_refs", "w") as f:
    f.write("5")  # VmHWM := VmRSS
rss0 = status("VmRSS")
buf = bytearray(4 << 20)
got, first, last = 0, b"", b""
t0 = time.perf_counter()
s.sendall(req)
while got < want:
    n = s.recv_into(buf)
    if n == 0:
        sys.exit("the server closed the connection")
    if not first:
        first = bytes(buf[:len(head)])
    got += n
    last = (last + bytes(buf[max(0, n - 40):n]))[-40:]
t = time.perf_counter() - t0
if first != head or got != want or not last.endswith(b"key:%012d\r\n" % (keys - 1)):
    sys.exit(f"unexpected reply: {got} of {want} bytes")
print(f"{t:.3f} {status('VmHWM') - rss0}")
PY
}

RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"; RBKV_PID=${BENCH_PIDS[-1]}
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"; REDIS_PID=${BENCH_PIDS[-1]}
load "$RBKV_PORT" gen_set
load "$REDIS_PORT" gen_zadd

declare -A T M
for _ in $(seq "$ROUNDS"); do
  read -r t m < <(read_reply "$RBKV_PORT" "$RBKV_PID" plain "$KEYS" KRANGE - + BYLEX)
  T[stream]+="$t "; M[stream]+="$m "
  read -r t m < <(read_reply "$REDIS_PORT" "$REDIS_PID" plain "$KEYS" ZRANGE z 0 -1)
  T[redis]+="$t "; M[redis]+="$m "
  read -r t m < <(read_reply "$RBKV_PORT" "$RBKV_PID" exec "$KEYS" "MULTI;KRANGE - + BYLEX;EXEC")
  T[buffered]+="$t "; M[buffered]+="$m "
done

range() { tr ' ' '\n' | awk 'NF { if (!n++ || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
  END { printf "%s .. %s", lo, hi }'; }
printf '%-34s | %-15s | %s\n' "$KEYS keys, $ROUNDS rounds" "seconds" "peak RSS growth, MB"
for k in stream redis buffered; do
  case $k in
    stream) name="rbkv KRANGE - + BYLEX (streamed)" ;;
    redis) name="redis ZRANGE z 0 -1" ;;
    buffered) name="rbkv the same inside MULTI/EXEC" ;;
  esac
  mb=$(echo "${M[$k]}" | tr ' ' '\n' | awk 'NF { printf "%.1f ", $1 / 1024 }')
  printf '%-34s | %-15s | %s\n' "$name" "$(echo "${T[$k]}" | range)" "$(echo "$mb" | range)"
done
