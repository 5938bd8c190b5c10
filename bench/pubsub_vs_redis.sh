#!/usr/bin/env bash
# Pub/sub of rbkv-server against Debian's redis-server 7, side by side in one run.
#   bench/pubsub_vs_redis.sh [--messages N] [--fanout-messages M] [--pattern-messages K]
#                            [--subscribers S] [--patterns X] [--repeats R] [--out DIR]
#   (or MESSAGES=, FANOUT_MESSAGES=, PATTERN_MESSAGES=, SUBSCRIBERS=, PATTERNS=, REPEATS= in the
#   environment; defaults 1,000,000 / 100,000 / 250,000 messages, 100 subscribers, 1,000 patterns,
#   3 repeats)
# Three tests, each a PUBLISH run of redis-benchmark -c 50 -P 16 -n COUNT PUBLISH p:chan PAYLOAD
# (a 16-byte payload) while bench/pubsub_sub (pubsub_sub.c) holds the subscribers in one process:
#   1sub       one SUBSCRIBE p:chan connection; N messages
#   fanout     S connections subscribed to p:chan; M messages, so S * M deliveries
#   patterns   one connection with PSUBSCRIBE p:ch* and X more patterns p:<i>:* that p:chan does
#              not match (each PUBLISH tries them all); K messages
# Before publishing, PUBSUB NUMSUB / NUMPAT must show the subscriptions. After it, every subscriber
# must have received exactly the messages published, each checked (kind, channel or pattern,
# payload), and none may have been closed; otherwise the run fails, so neither server can score by
# not delivering. Reported per run: PUBLISH/s (redis-benchmark's figure) and delivered messages/s
# (what the subscribers received, from the first message to the last); per test the median and
# range of R runs and rbkv/redis of the medians (goal >= 1.0; higher is better). The two kinds take
# turns, the first of each round alternating, so drift on a noisy machine hits both.
# Each kind runs in its own temp dir with --save "" (redis also --appendonly no) and
# client-output-buffer-limit pubsub 0 0 0 (PUBSUB_LIMIT=, default "0 0 0"): the subscribers share
# the two cores with the publisher and both servers, and at the default 32 MB a subscriber that
# falls behind for a moment would be closed and the run would fail on delivery, not speed.
# Writes into DIR, by default a new build-bench/results-pubsub-YYYYmmdd-HHMMSS/ (git-ignored):
#   summary.txt  what this prints     runs.csv  one row per run     machine.txt  the settings
#   logs/        both servers' logs and every subscriber process's output
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
MESSAGES=${MESSAGES:-1000000} FANOUT_MESSAGES=${FANOUT_MESSAGES:-100000}
PATTERN_MESSAGES=${PATTERN_MESSAGES:-250000} SUBSCRIBERS=${SUBSCRIBERS:-100}
PATTERNS=${PATTERNS:-1000} REPEATS=${REPEATS:-3} PUBSUB_LIMIT=${PUBSUB_LIMIT:-0 0 0}
OUT=$ROOT/build-bench/results-pubsub-$(date -u +%Y%m%d-%H%M%S)
while [ $# -gt 0 ]; do
  case $1 in
    --messages) MESSAGES=$2; shift 2 ;;
    --fanout-messages) FANOUT_MESSAGES=$2; shift 2 ;;
    --pattern-messages) PATTERN_MESSAGES=$2; shift 2 ;;
    --subscribers) SUBSCRIBERS=$2; shift 2 ;;
    --patterns) PATTERNS=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--messages N] [--fanout-messages M] [--pattern-messages K] [--subscribers S] [--patterns X] [--repeats R] [--out DIR]" >&2
       exit 2 ;;
  esac
done
SUB_BIN=${SUB_BIN:-$ROOT/build/bench/pubsub_sub}
CHANNEL=p:chan PATTERN='p:ch*' PAYLOAD=payload:01234567 # 16 bytes
SUB_IDLE=${SUB_IDLE:-30} # seconds without a message before a subscriber process gives up
ensure_built
[ -x "$SUB_BIN" ] || { echo "no $SUB_BIN (cmake --build build --target pubsub_sub)" >&2; exit 1; }
mkdir -p "$OUT/logs"

# The body runs in a subshell piped through tee, so its trap is the one that cleans up.
main() {
WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

die() { echo "error: $*" >&2; exit 1; }
cli() { local port=$1; shift; redis-cli -p "$port" "$@"; }

# launch KIND: a server of KIND (rbkv|redis) in its own dir on a free port; sets PORT[KIND].
declare -A PORT
launch() {
  local kind=$1 dir=$WORK/$1 p
  mkdir -p "$dir"; p=$(free_port)
  # shellcheck disable=SC2086 # PUBSUB_LIMIT is three words
  if [ "$kind" = rbkv ]; then
    "$RBKV_BIN" --port "$p" --dir "$dir" --save '' --client-output-buffer-limit pubsub $PUBSUB_LIMIT \
      --loglevel notice >>"$OUT/logs/$kind.log" 2>&1 &
  else
    redis-server --port "$p" --dir "$dir" --save '' --appendonly no \
      --client-output-buffer-limit pubsub $PUBSUB_LIMIT --loglevel notice >>"$OUT/logs/$kind.log" 2>&1 &
  fi
  BENCH_PIDS+=("$!")
  wait_ping "$p" || die "$kind did not start (logs/$kind.log)"
  PORT[$kind]=$p
}

median() { # of the numbers on stdin; of an even count, the mean of the middle two
  tr ' ' '\n' | sed '/^$/d' | sort -g |
    awk '{ v[NR] = $1 } END { if (!NR) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
range() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { print a "-" b }'; }
kv() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p"; } # kv KEY <<< "a=1 b=2"

# run TEST KIND ROUND: the subscribers, then one PUBLISH run; prints "publish/s delivered/s
# usec/PUBLISH", the last the server's own time in the command (INFO commandstats after CONFIG
# RESETSTAT), which includes appending the messages to the subscribers' output but not sending it.
run() {
  local test=$1 kind=$2 round=$3 p=${PORT[$2]} n subargs want got log spid ops line i usec
  case $test in
    1sub) n=$MESSAGES; subargs=(-c 1 -C "$CHANNEL"); want="numsub 1" ;;
    fanout) n=$FANOUT_MESSAGES; subargs=(-c "$SUBSCRIBERS" -C "$CHANNEL"); want="numsub $SUBSCRIBERS" ;;
    patterns) n=$PATTERN_MESSAGES; subargs=(-c 1 -P "$PATTERN" -x "$PATTERNS"); want="numpat $((PATTERNS + 1))" ;;
  esac
  log=$OUT/logs/sub-$test-$kind-$round.txt
  "$SUB_BIN" -p "$p" -n "$n" -m "$PAYLOAD" -t "$SUB_IDLE" "${subargs[@]}" >"$log" 2>&1 &
  spid=$!; BENCH_PIDS+=("$spid")
  for ((i = 0; i < 600; i++)); do grep -qs '^ready' "$log" && break; sleep 0.05; done
  fail() { kill "$spid" 2>/dev/null; die "$@"; }
  grep -q '^ready' "$log" || fail "$test on $kind: the subscribers were not ready after 30 s ($log)"
  if [ "${want%% *}" = numsub ]; then got=$(cli "$p" pubsub numsub "$CHANNEL" | sed -n 2p)
  else got=$(cli "$p" pubsub numpat); fi
  [ "$got" = "${want#* }" ] || fail "$test on $kind: PUBSUB ${want%% *} says $got, expected ${want#* }"
  cli "$p" config resetstat >/dev/null
  ops=$(redis-benchmark -p "$p" -c 50 -P 16 -n "$n" -q --csv PUBLISH "$CHANNEL" "$PAYLOAD" |
    csv_rps)
  wait "$spid" || die "$test on $kind: the subscribers did not get every message: $(tail -1 "$log")"
  line=$(tail -1 "$log")
  [ "$(kv ok <<<"$line")" = 1 ] || die "$test on $kind: $line"
  [ -n "$ops" ] || die "$test on $kind: redis-benchmark gave no figure"
  usec=$(cli "$p" info commandstats | tr -d '\r' | awk -F'[=,]' '$1 == "cmdstat_publish:calls" { print $6 }')
  echo "$(printf '%.0f' "$ops") $(kv delivered_per_s <<<"$line") ${usec:-0}"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
  echo "machine: $(nproc) vCPU, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "kernel: $(uname -r)  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "rbkv: $RBKV_BIN  redis: $(redis-server --version | cut -d' ' -f3)"
  echo "publisher: redis-benchmark -c 50 -P 16 PUBLISH $CHANNEL $PAYLOAD; client-output-buffer-limit pubsub $PUBSUB_LIMIT"
  echo "messages: 1sub $MESSAGES, fanout $FANOUT_MESSAGES to $SUBSCRIBERS subscribers, patterns $PATTERN_MESSAGES with $PATTERNS + 1 patterns; repeats: $REPEATS"
} >"$OUT/machine.txt"
cat "$OUT/machine.txt"

launch rbkv; launch redis
TESTS="1sub fanout patterns"
declare -A PUB DEL USEC
echo "test,round,kind,publish_per_s,delivered_per_s,usec_per_publish" >"$OUT/runs.csv"
echo
printf '%-9s %5s %-6s %12s %14s %13s\n' test round kind "PUBLISH/s" "delivered/s" "usec/PUBLISH"
for ((r = 1; r <= REPEATS; r++)); do
  order="rbkv redis"; [ $((r % 2)) = 0 ] && order="redis rbkv"
  for test in $TESTS; do
    for kind in $order; do
      read -r pub del usec < <(run "$test" "$kind" "$r")
      [ -n "${del:-}" ] || die "$test on $kind, round $r failed (see above)"
      echo "$test,$r,$kind,$pub,$del,$usec" >>"$OUT/runs.csv"
      PUB[$test-$kind]="${PUB[$test-$kind]:-} $pub"; DEL[$test-$kind]="${DEL[$test-$kind]:-} $del"
      USEC[$test-$kind]="${USEC[$test-$kind]:-} $usec"
      printf '%-9s %5d %-6s %12s %14s %13s\n' "$test" "$r" "$kind" "$pub" "$del" "$usec"
    done
  done
done

echo
echo "medians of $REPEATS runs (range); ratio rbkv/redis of the medians (goal >= 1.0 for the rates;"
echo "for usec/PUBLISH, the time inside the command, lower is better)"
printf '%-9s %-12s %28s %28s %7s\n' test measure "rbkv" "redis" ratio
for test in $TESTS; do
  for m in PUBLISH/s delivered/s usec/PUBLISH; do
    case $m in
      PUBLISH/s) x=${PUB[$test-rbkv]} y=${PUB[$test-redis]} f=%.0f ;;
      delivered/s) x=${DEL[$test-rbkv]} y=${DEL[$test-redis]} f=%.0f ;;
      *) x=${USEC[$test-rbkv]} y=${USEC[$test-redis]} f=%.2f ;;
    esac
    a=$(median <<<"$x"); b=$(median <<<"$y")
    if [ $f = %.2f ]; then a=$(printf %.2f "$a") b=$(printf %.2f "$b"); else a=$(printf %.0f "$a") b=$(printf %.0f "$b"); fi
    printf '%-9s %-12s %28s %28s %7s\n' "$test" "$m" "$a ($(range <<<"$x"))" "$b ($(range <<<"$y"))" "$(ratio "$a" "$b")"
  done
done
echo
echo "every subscriber received every message, checked; results in $OUT"
}
main 2>&1 | tee "$OUT/summary.txt"; exit "${PIPESTATUS[0]}" # on this line: bash reads a script as it runs it
