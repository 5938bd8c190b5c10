#!/usr/bin/env bash
# Streams against Debian's redis-server 7, in one run: throughput of XADD and of a consumer
# group's XREADGROUP + XACK, and the memory of 1,000,000 entries.
#   bench/stream_vs_redis.sh [--rounds N] [--quick]
#
# redis-benchmark (50 clients, -P 1 and -P 16) runs each test on both servers, alternating for
# --rounds rounds (default 3); the best of each is kept and the ratio is rbkv / redis:
#   XADD s * f v                        appends to one stream; then the time inside XADD (INFO
#                                       commandstats over both pipelines' rounds), rbkv / redis
#   XREADGROUP ... COUNT 1 STREAMS q >  one new entry a call to consumer c of group g (1,000,000
#                                       entries loaded first, ids i-1, so each call gets a new one)
#   XACK q g R-1                        acknowledges a random pending entry (R < the entries read;
#                                       about two thirds of the calls find it pending)
#   read + ack                          a consumer's cycle: 1 / (1/read + 1/ack) of the two above
# Memory: used_memory after loading 1,000,000 entries "XADD mem <i>-1 name <i> value <i>" (by
# redis-cli --pipe) minus before, in bytes an entry; the ratio is rbkv / redis.
# --quick: one round with a tenth of the requests (and a tenth of the entries), for a smoke run.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

rounds_args "$@"
ensure_built

ENTRIES=$((1000000 / SCALE))
# XADD KEY <i>-1 name <i> value <i>, for i in 1..N (explicit ids, so XACK can name them).
gen_entries() { # KEY N
  awk -v key="$1" -v n="$2" 'BEGIN { for (i = 1; i <= n; i++) {
      id = i "-1"
      printf "*7\r\n$4\r\nXADD\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$4\r\nname\r\n$%d\r\n%d\r\n$5\r\nvalue\r\n$%d\r\n%d\r\n",
        length(key), key, length(id), id, length(i ""), i, length(i ""), i } }'
}
load() { gen_entries "$2" "$3" | pipe_load "$1"; } # PORT KEY N
used() { info_field "$1" used_memory; }

RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"

declare -A MEM
for port in "$RBKV_PORT" "$REDIS_PORT"; do
  before=$(used "$port")
  load "$port" mem "$ENTRIES"
  MEM[$port]=$(( ($(used "$port") - before) / ENTRIES ))
  [ "$(redis-cli -p "$port" xlen mem)" = "$ENTRIES" ] || { echo "xlen mem on $port" >&2; exit 1; }
  redis-cli -p "$port" del mem >/dev/null
done

bench_row_header ""
for port in "$RBKV_PORT" "$REDIS_PORT"; do redis-cli -p "$port" config resetstat >/dev/null; done
bench_row "XADD s * f v" 1000000 1 XADD s '*' f v
printf '%-36s | %10s %10s %6s\n' "XADD us in the command (all rounds)" \
  "$(usec_per_call "$RBKV_PORT" xadd)" "$(usec_per_call "$REDIS_PORT" xadd)" \
  "$(ratio "$(usec_per_call "$RBKV_PORT" xadd)" "$(usec_per_call "$REDIS_PORT" xadd)")"

# The consumer group: each round loads the stream q again, reads n of its entries into the PEL,
# then acknowledges random ones of those.
declare -A READ ACK
for p in 1 16; do
  n=$((ENTRIES / 2)); [ "$p" = 1 ] && n=$((n / 4))
  for port in "$RBKV_PORT" "$REDIS_PORT"; do READ[$port.$p]=0; ACK[$port.$p]=0; done
  for _ in $(seq "$ROUNDS"); do
    for port in "$RBKV_PORT" "$REDIS_PORT"; do
      redis-cli -p "$port" del q >/dev/null
      load "$port" q "$ENTRIES"
      redis-cli -p "$port" xgroup create q g 0 >/dev/null
      READ[$port.$p]=$(best "${READ[$port.$p]}" \
        "$(bench_rps "$port" "$n" "$p" 1 XREADGROUP GROUP g c COUNT 1 STREAMS q '>')")
      pending=$(redis-cli -p "$port" xpending q g | head -1)
      [ "$pending" -ge "$n" ] || { echo "only $pending pending on $port" >&2; exit 1; }
      ACK[$port.$p]=$(best "${ACK[$port.$p]}" \
        "$(bench_rps "$port" "$n" "$p" "$n" XACK q g __rand_int__-1)")
    done
  done
done
cycle() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.0f", 1 / (1 / a + 1 / b); else print 0 }'; }
for what in read ack cycle; do
  case $what in
    read) line=$(printf '%-36s' "XREADGROUP g c COUNT 1 STREAMS q >") ;;
    ack) line=$(printf '%-36s' "XACK q g R-1") ;;
    cycle) line=$(printf '%-36s' "read + ack (one consumer cycle)") ;;
  esac
  for p in 1 16; do
    case $what in
      read) r=${READ[$RBKV_PORT.$p]}; s=${READ[$REDIS_PORT.$p]} ;;
      ack) r=${ACK[$RBKV_PORT.$p]}; s=${ACK[$REDIS_PORT.$p]} ;;
      cycle) r=$(cycle "${READ[$RBKV_PORT.$p]}" "${ACK[$RBKV_PORT.$p]}")
             s=$(cycle "${READ[$REDIS_PORT.$p]}" "${ACK[$REDIS_PORT.$p]}") ;;
    esac
    line+=$(printf ' | %10.0f %10.0f %6s' "$r" "$s" "$(ratio "$r" "$s")")
  done
  echo "$line"
done

printf '\n%-36s | %10s %10s %6s\n' "memory, bytes an entry" rbkv redis ratio
printf '%-36s | %10s %10s %6s\n' "$ENTRIES entries, 2 fields each" "${MEM[$RBKV_PORT]}" \
  "${MEM[$REDIS_PORT]}" "$(ratio "${MEM[$RBKV_PORT]}" "${MEM[$REDIS_PORT]}")"
