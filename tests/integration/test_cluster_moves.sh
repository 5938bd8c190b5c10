#!/usr/bin/env bash
# Slot moves back to back leave one slot map (server/commands/cmd_cluster.c, SETSLOT NODE; issue
# 35). Three primaries made by `redis-cli --cluster create`, then:
#   broadcast  a primary taking an imported slot (SETSLOT NODE itself) sends a PONG to every
#              other node at once, as Redis 7.0 does, so they learn its new config epoch before
#              the next random ping
#   moves      the slots of 20 keys moved one right after the other between the primaries
#              (tests/clients/cluster/move_slot.sh: IMPORTING, MIGRATING, MIGRATE, SETSLOT NODE);
#              the cluster then settles: every slot served, every node agreeing, and each key
#              read through any node. Without the broadcast, a node that had not yet heard of
#              the last bump took the same stale epoch, a claim of the old owner in flight
#              outranked it, and the two ends each sent clients to the other for good.
# usage: tests/integration/test_cluster_moves.sh SERVER_BIN (Debian's redis-server passes it too)
# Exits 77 (skip) without redis-cli.
set -u
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }
server_bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not installed (scripts/deps.sh test)"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rbkv-cluster-moves-XXXXXX") || exit 1
# shellcheck disable=SC2034 # read by instances.sh
READY_SECONDS=30
# shellcheck source-path=SCRIPTDIR source=cluster.sh
. "$here/cluster.sh"
cluster_create 3 0 || exit 1
ports=("${CLUSTER_PORTS[@]}")

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
pongs_sent() { cli "$1" CLUSTER INFO | tr -d '\r' | awk -F: '$1 == "cluster_stats_messages_pong_sent" { print $2 }'; }
# owner SLOT: the port of the primary serving SLOT, as the first node sees it.
owner() {
  cli "${ports[0]}" CLUSTER NODES | awk -v s="$1" '$3 ~ /master/ {
    for (i = 9; i <= NF; i++) { n = split($i, r, "-"); hi = n > 1 ? r[2] : r[1]
      if ($i !~ /^\[/ && s >= r[1] + 0 && s <= hi + 0) { split($2, a, "[:@]"); print a[2]; exit } } }'
}
# other PORT: a primary other than PORT.
other() { local p; for p in "${ports[@]}"; do [ "$p" != "$1" ] && { echo "$p"; return; }; done; }

# broadcast: slot 0 from its owner to another primary, by hand, counting the target's PONGs.
from=$(owner 0) to=$(other "$(owner 0)")
cli "$to" CLUSTER SETSLOT 0 IMPORTING "$(cli "$from" CLUSTER MYID)" >/dev/null
cli "$from" CLUSTER SETSLOT 0 MIGRATING "$(cli "$to" CLUSTER MYID)" >/dev/null
before=$(pongs_sent "$to")
[ "$(cli "$to" CLUSTER SETSLOT 0 NODE "$(cli "$to" CLUSTER MYID)")" = OK ] || fail "SETSLOT NODE on the importer"
after=$(pongs_sent "$to")
[ "$((after - before))" -ge $((${#ports[@]} - 1)) ] ||
  fail "broadcast: the importer sent $((after - before)) PONGs on taking the slot, expected one to each of $((${#ports[@]} - 1)) nodes"
for p in "${ports[@]}"; do
  [ "$p" = "$to" ] || cli "$p" CLUSTER SETSLOT 0 NODE "$(cli "$to" CLUSTER MYID)" >/dev/null
done

# moves: the slots of 20 keys, each to another primary, without waiting in between.
for ((i = 0; i < 20; i++)); do
  slot=$(cli "${ports[0]}" CLUSTER KEYSLOT "k$i")
  from=$(owner "$slot")
  [ -n "$from" ] || { fail "moves: no owner for slot $slot"; continue; }
  [ "$(cli "$from" SET "k$i" "v$i")" = OK ] || fail "moves: SET k$i on its owner"
  "$here/../clients/cluster/move_slot.sh" "$slot" "$(other "$from")" "${ports[@]}" >/dev/null ||
    fail "moves: move_slot.sh $slot"
done
wait_until $((30 * ${RBKV_TEST_SLOW:-1})) cluster_settled || {
  fail "moves: the cluster never settled after 20 back-to-back moves; each node's map:"
  for p in "${ports[@]}"; do echo "== $p" >&2; cli "$p" CLUSTER NODES >&2; done
}
for ((i = 0; i < 20; i++)); do
  for p in "${ports[@]}"; do
    got=$(timeout 10 redis-cli -c -p "$p" GET "k$i") # -c follows -MOVED without end
    [ "$got" = "v$i" ] || { fail "moves: GET k$i through $p gave '$got', expected v$i"; break 2; }
  done
done

[ "$failures" -eq 0 ] || exit 1
echo "cluster moves: ok"
