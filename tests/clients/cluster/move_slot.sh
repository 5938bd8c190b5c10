#!/usr/bin/env bash
# Moves one hash slot, with its keys, to another primary, the steps `redis-cli --cluster reshard`
# takes for each slot: SETSLOT IMPORTING on the target, MIGRATING on the source, MIGRATE of the
# slot's keys in batches, SETSLOT NODE on every primary. The client tests call it to see a -MOVED
# of their own: afterwards the source answers the slot's keys with -MOVED SLOT ip:port.
# usage: move_slot.sh SLOT TO_PORT PORT...  (PORT...: every node of the cluster)
# Prints the source's port. Exits 1 with the reason on stderr.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 SLOT TO_PORT PORT..." >&2; exit 2; }
slot=$1 to=$2
shift 2
cli() { redis-cli -p "$1" "${@:2}"; }
ok() { # ok WHAT REPLY
  [ "$2" = OK ] || [ "$2" = NOKEY ] || { echo "$1: $2" >&2; exit 1; }
}

# The owner's address from the target's CLUSTER NODES: the primary whose ranges hold the slot.
from=$(cli "$to" CLUSTER NODES | awk -v s="$slot" '
  $3 ~ /master/ { for (i = 9; i <= NF; i++) { n = split($i, r, "-"); lo = r[1]; hi = n > 1 ? r[2] : r[1]
      if ($i !~ /^\[/ && s >= lo + 0 && s <= hi + 0) { split($2, a, "[:@]"); print a[2]; exit } } }')
[ -n "$from" ] || { echo "no primary serves slot $slot" >&2; exit 1; }
[ "$from" != "$to" ] || { echo "slot $slot is on $to already" >&2; exit 1; }
from_id=$(cli "$from" CLUSTER MYID)
to_id=$(cli "$to" CLUSTER MYID)

ok "SETSLOT IMPORTING" "$(cli "$to" CLUSTER SETSLOT "$slot" IMPORTING "$from_id")"
ok "SETSLOT MIGRATING" "$(cli "$from" CLUSTER SETSLOT "$slot" MIGRATING "$to_id")"
while :; do
  mapfile -t keys < <(cli "$from" CLUSTER GETKEYSINSLOT "$slot" 100)
  if [ ${#keys[@]} -eq 0 ] || [ -z "${keys[0]}" ]; then break; fi
  ok MIGRATE "$(cli "$from" MIGRATE 127.0.0.1 "$to" "" 0 5000 KEYS "${keys[@]}")"
done
# The target first, as redis-cli: it must own the slot before the source sends clients there.
ok "SETSLOT NODE on $to" "$(cli "$to" CLUSTER SETSLOT "$slot" NODE "$to_id")"
ok "SETSLOT NODE on $from" "$(cli "$from" CLUSTER SETSLOT "$slot" NODE "$to_id")"
for p in "$@"; do
  [ "$p" = "$to" ] || [ "$p" = "$from" ] && continue
  role=$(cli "$p" ROLE | head -1)
  [ "$role" = master ] || continue
  ok "SETSLOT NODE on $p" "$(cli "$p" CLUSTER SETSLOT "$slot" NODE "$to_id")"
done
echo "$from"
