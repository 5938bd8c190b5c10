#!/usr/bin/env bash
# bench/loadgen against a fresh server: both loops report per-command percentiles, and the open
# loop charges a stall to every request due during it (no coordinated omission).
# usage: tests/integration/loadgen_smoke.sh SERVER_BIN LOADGEN_BIN
# A DEBUG SLEEP of 0.4 s half a second into a 2-second open-loop run at 1,000 requests per second:
# the ~400 requests due during the sleep wait up to 0.4 s each, so the run's max is at least
# 0.3 s and its p99 at least 0.1 s whatever the machine's speed (a loop that timed requests from
# when they were sent would see one slow request per connection). Exits 0 when every check
# holds, 1 otherwise, 77 (skip) without redis-cli.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 SERVER_BIN LOADGEN_BIN" >&2
  exit 2
fi
command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not found" >&2; exit 77; }
. "$(dirname "$0")/server.sh"
LOADGEN=$2

server_start "$1" || exit 1
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

# check_line OUTPUT LABEL: LABEL's CSV line exists, has requests, no errors, ordered percentiles.
check_line() {
  local line
  line=$(grep "^$2," <<<"$1")
  [ -n "$line" ] || { fail "no line $2 in: $1"; return; }
  awk -F, '{ exit !($5 > 0 && $6 == 0 && $9 > 0 && $9 <= $10 && $10 <= $11 && $11 <= $12) }' <<<"$line" ||
    fail "line $2 has no requests, errors or unordered percentiles: $line"
}

closed=$("$LOADGEN" -p "$SERVER_PORT" -c 2 -P 4 -n 2000 -k 100 -l closed -S -t '3:SET __key__ v' -t '1:GET __key__')
echo "$closed"
for l in closed closed/SET closed/GET; do check_line "$closed" "$l"; done

timeline=$SERVER_DIR/timeline.csv
(sleep 0.5; redis-cli -p "$SERVER_PORT" debug sleep 0.4 >/dev/null) &
sleeper=$!
open=$("$LOADGEN" -p "$SERVER_PORT" -c 2 -r 1000 -d 2 -k 100 -l open -S -T "$timeline" -t 'PING' -t 'GET __key__')
wait "$sleeper"
echo "$open"
for l in open open/PING open/GET; do check_line "$open" "$l"; done
awk -F, '$1 == "open" { exit !($5 >= 1900 && $5 <= 2001) }' <<<"$open" ||
  fail "the open loop at 1000/s for 2 s did not send about 2000 requests"
awk -F, '$1 == "open" { exit !($12 >= 300000 && $10 >= 100000) }' <<<"$open" ||
  fail "the 0.4 s stall is not charged to the requests due during it (max and p99 in us above)"
# The timeline: 100 ms windows of the 2 s, one of them holding the stall.
awk -F, '$1 == "open" { n++; if ($4 >= 300000) slow++ } END { exit !(n >= 15 && slow >= 1) }' "$timeline" ||
  fail "the timeline lacks windows or the slow one: $(cat "$timeline")"

server_stop || failed=1
[ "$failed" -eq 0 ] && echo "loadgen smoke: both loops report percentiles; the stall is charged"
exit "$failed"
