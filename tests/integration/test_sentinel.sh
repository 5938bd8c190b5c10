#!/usr/bin/env bash
# Automatic failover under Redis Sentinel, end to end: a primary, two replicas (each started from a
# config file of its own, since a failover sends them CONFIG REWRITE) and three Debian
# redis-sentinel processes (quorum 2, down-after-milliseconds 1000, failover-timeout 10000), all on
# free loopback ports in one temp dir. Checked, in order:
#   discovery   each sentinel lists the two others (found through the primary's __sentinel__:hello
#               channel, so the server needs pub/sub) and the two replicas
#   writes      keys written before the failover, each acknowledged by WAIT 1 1000
#   kill -9     of the primary: within FAILOVER_BOUND seconds SENTINEL GET-MASTER-ADDR-BY-NAME
#               names a former replica that reports role:master, and the other replica follows it
#               (master_link_status:up, master_port = the new primary); the time is printed, and
#               asserted on only through the bound; every acknowledged key is on the new primary
#   client      when node and tests/clients/node_modules (ioredis) are there: an ioredis client
#               connected through the sentinels writes every 20 ms across the kill -9
#               (tests/clients/sentinel_failover.js); it reports how long its writes stalled and
#               checks that every write a replica acknowledged is there afterwards
#   rejoin      the old primary, restarted on its port from its config file, is made a replica of
#               the new one by the sentinels and gets the data
#   manual      SENTINEL FAILOVER mymaster moves the primary again; the data is intact
# usage: tests/integration/test_sentinel.sh SERVER_BIN
#   SERVER_BIN is build/server/rbkv-server (ctest's integration_sentinel) or Debian's redis-server,
#   the yardstick the test was written against:
#     tests/integration/test_sentinel.sh /usr/bin/redis-server
# Exits 77 (skip) when redis-sentinel or redis-cli is missing (scripts/deps.sh test installs them),
# and when the server has no PUBLISH/SUBSCRIBE (COMMAND INFO): the sentinels' hello messages go
# through the __sentinel__:hello channel of every server they watch, and a sentinel whose SUBSCRIBE
# fails drops that link, so it finds no other sentinel and counts no replica fit to promote.
# SENTINEL_FORCE=1 runs it on such a server anyway. Installs nothing. Every process it started is killed on exit; on failure the temp dir, with each
# process's log and config, is kept and its path printed.
set -u
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }
server_bin=$1
for tool in redis-sentinel redis-cli; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (scripts/deps.sh test)"; exit 77; }
done
[ -x "$server_bin" ] || { echo "$server_bin is not an executable" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
server_bin=$(cd "$(dirname "$server_bin")" && pwd)/$(basename "$server_bin")

SLOW=${RBKV_TEST_SLOW:-1}
READY_SECONDS=$((10 * SLOW))
DISCOVERY_BOUND=$((30 * SLOW)) # sentinels say hello every 2 s
FAILOVER_BOUND=$((30 * SLOW))  # kill -9 to a promoted replica that the other one follows
REJOIN_BOUND=$((40 * SLOW))    # a sentinel converts a returning old primary after 8 s or more
KEYS_BEFORE=200
QUORUM=2

# Each server's config file. Redis and rbkv take different persistence settings; both start a
# diskless full sync at once rather than waiting 5 s for more replicas.
case "$(basename "$server_bin")" in
  redis-server*) kind=redis
    server_conf_extra=$'save ""\nappendonly no\nrepl-diskless-sync-delay 0' ;;
  *) kind=rbkv
    server_conf_extra=$'repl-diskless-sync-delay 0' ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/rbkv-sentinel-XXXXXX") || exit 1
# Instances (instances.sh's pid and port) by name: s0 s1 s2 (servers), t0 t1 t2 (sentinels); its
# hooks write_conf, instance_cmd and instance_answers are defined below.
# shellcheck source-path=SCRIPTDIR source=instances.sh
. "$here/instances.sh"

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# die MESSAGE: a failure the later checks cannot go on from; shows the sentinels' logs' tails.
die() {
  echo "FAIL: $*" >&2
  local t
  for t in t0 t1 t2; do
    [ -f "$work/$t.log" ] && { echo "--- $t.log (last 15 lines)" >&2; tail -n 15 "$work/$t.log" >&2; }
  done
  exit 1
}
now() { date +%s.%N; }
elapsed() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }'; }

cli() { # cli PORT ARGS...
  local p=$1
  shift
  redis-cli -p "$p" "$@" 2>/dev/null
}
# info_field PORT FIELD: one field of INFO replication, without its CR.
info_field() { cli "$1" INFO replication | tr -d '\r' | sed -n "s/^$2://p"; }
sentinel_master_port() { cli "${port[$1]}" SENTINEL GET-MASTER-ADDR-BY-NAME mymaster | sed -n 2p; }

# write_conf NAME: NAME's config file from its port and role (servers: s1 and s2 follow s0).
write_conf() {
  local name=$1 conf=$work/$1.conf
  case "$name" in
    s*) { echo "port ${port[$name]}"
          echo "bind 127.0.0.1"
          echo "dir $work/$name.dir"
          echo "$server_conf_extra"
          [ "$name" != s0 ] && echo "replicaof 127.0.0.1 ${port[s0]}"
        } >"$conf" ;;
    t*) { echo "port ${port[$name]}"
          echo "bind 127.0.0.1"
          echo "dir $work/$name.dir"
          echo "sentinel resolve-hostnames no"
          echo "sentinel monitor mymaster 127.0.0.1 ${port[s0]} $QUORUM"
          echo "sentinel down-after-milliseconds mymaster 1000"
          echo "sentinel failover-timeout mymaster 10000"
          echo "sentinel parallel-syncs mymaster 1"
        } >"$conf" ;;
  esac
}

instance_cmd() {
  case "$1" in
    s*) INSTANCE_CMD=("$server_bin" "$work/$1.conf") ;;
    t*) INSTANCE_CMD=(redis-sentinel "$work/$1.conf") ;;
  esac
}
instance_answers() { [ -n "$(cli "${port[$1]}" PING)" ]; }

# follows PORT PRIMARY_PORT: the server on PORT is a replica of PRIMARY_PORT with its link up.
follows() {
  local out
  out=$(cli "$1" INFO replication | tr -d '\r')
  grep -qx "role:slave" <<<"$out" && grep -qx "master_port:$2" <<<"$out" &&
    grep -qx "master_link_status:up" <<<"$out"
}
is_primary() { [ "$(info_field "$1" role)" = master ]; }
# sentinels_agree PORT: every sentinel names 127.0.0.1 PORT as mymaster's primary.
sentinels_agree() {
  local t
  for t in t0 t1 t2; do
    [ "$(cli "${port[$t]}" SENTINEL GET-MASTER-ADDR-BY-NAME mymaster | tr '\n' ' ')" = "127.0.0.1 $1 " ] ||
      return 1
  done
}
# discovered: each sentinel knows the two others and the two replicas.
discovered() {
  local t n_sentinels n_replicas
  for t in t0 t1 t2; do
    n_sentinels=$(cli "${port[$t]}" SENTINEL SENTINELS mymaster | grep -cx 'name')
    n_replicas=$(cli "${port[$t]}" SENTINEL REPLICAS mymaster | grep -cx 'name')
    [ "$n_sentinels" = 2 ] && [ "$n_replicas" = 2 ] || return 1
  done
}
# server_name PORT: which of s0 s1 s2 listens on PORT.
server_name() {
  local s
  for s in s0 s1 s2; do [ "${port[$s]}" = "$1" ] && { echo "$s"; return; }; done
}
# keys_missing PORT FIRST LAST: how many of k:FIRST..k:LAST do not hold v:<n> on PORT.
keys_missing() {
  local p=$1 first=$2 last=$3
  seq "$first" "$last" | awk '{ printf "GET k:%d\n", $1 }' | cli "$p" |
    awk -v f="$first" '{ if ($0 != "v:" (f + NR - 1)) bad++ } END { print bad + 0 }'
}
# write_acked PORT FIRST LAST: SET k:n v:n, each followed by WAIT 1 1000; prints how many a replica
# acknowledged (WAIT answered 1 or more).
write_acked() {
  seq "$2" "$3" | awk '{ printf "SET k:%d v:%d\nWAIT 1 1000\n", $1, $1 }' | cli "$1" |
    awk 'NR % 2 == 0 && $0 + 0 >= 1 { n++ } END { print n + 0 }'
}

echo "== $kind: $server_bin, in $work"
start_instance s0 || die "s0 did not start"
# Sentinel cannot work without PUBLISH and SUBSCRIBE (see the top); a server that lacks them skips,
# unless SENTINEL_FORCE=1 asks to see how Sentinel fails.
if [ "$(cli "${port[s0]}" COMMAND INFO PUBLISH SUBSCRIBE | grep -cxiE 'publish|subscribe')" != 2 ] &&
   [ "${SENTINEL_FORCE:-0}" != 1 ]; then
  echo "SKIP: $server_bin has no PUBLISH/SUBSCRIBE, which Sentinel needs (SENTINEL_FORCE=1 runs it anyway)"
  exit 77
fi
for name in s1 s2; do
  start_instance "$name" || die "$name did not start"
done
echo "   primary s0 on ${port[s0]}, replicas s1 on ${port[s1]}, s2 on ${port[s2]}"
wait_until "$READY_SECONDS" follows "${port[s1]}" "${port[s0]}" || die "s1 never synced with s0"
wait_until "$READY_SECONDS" follows "${port[s2]}" "${port[s0]}" || die "s2 never synced with s0"
for name in t0 t1 t2; do
  start_instance "$name" || die "sentinel $name did not start"
done
echo "   sentinels t0 on ${port[t0]}, t1 on ${port[t1]}, t2 on ${port[t2]}"

echo "== discovery"
start=$(now)
if wait_until "$DISCOVERY_BOUND" discovered; then
  echo "   each sentinel lists 2 sentinels and 2 replicas after $(elapsed "$start") s"
else
  for t in t0 t1 t2; do
    echo "   $t: $(cli "${port[$t]}" SENTINEL SENTINELS mymaster | grep -cx name) sentinels," \
         "$(cli "${port[$t]}" SENTINEL REPLICAS mymaster | grep -cx name) replicas;" \
         "master flags: $(cli "${port[$t]}" SENTINEL MASTER mymaster | sed -n '/^flags$/{n;p}')" >&2
  done
  die "the sentinels did not discover each other and the replicas within $DISCOVERY_BOUND s"
fi

echo "== $KEYS_BEFORE writes, each acknowledged by WAIT 1 1000"
acked=$(write_acked "${port[s0]}" 1 "$KEYS_BEFORE")
[ "$acked" = "$KEYS_BEFORE" ] || die "WAIT 1 1000 acknowledged $acked of $KEYS_BEFORE writes"
echo "   $acked acknowledged"

# The ioredis client, when it can run: it writes until $work/client.stop appears.
client_js=$here/../clients/sentinel_failover.js
if ! command -v node >/dev/null; then
  echo "== SKIP (client part only): node not installed (scripts/deps.sh test)"
elif [ ! -d "$here/../clients/node_modules/ioredis" ]; then
  echo "== SKIP (client part only): no tests/clients/node_modules (tests/clients/run.sh or npm ci installs it)"
else
  echo "== ioredis client through the sentinels"
  node "$client_js" --sentinels "127.0.0.1:${port[t0]},127.0.0.1:${port[t1]},127.0.0.1:${port[t2]}" \
    --name mymaster --interval 20 --stop-file "$work/client.stop" >"$work/client.out" 2>"$work/client.log" &
  pid[node]=$! # killed by instances.sh on exit, like the instances
  # It prints "writing" once its first writes are acknowledged.
  wait_until "$READY_SECONDS" grep -q '^writing' "$work/client.out" ||
    { cat "$work/client.log" >&2; die "the ioredis client never started writing"; }
  sleep 1 # the test: a second of writes through the sentinels before the kill
fi

echo "== kill -9 of the primary s0 (port ${port[s0]})"
old=${port[s0]}
kill -9 "${pid[s0]}"
wait "${pid[s0]}" 2>/dev/null
pid[s0]=
start=$(now)
promoted() {
  local p
  p=$(sentinel_master_port t0)
  [ -n "$p" ] && [ "$p" != "$old" ] && is_primary "$p"
}
wait_until "$FAILOVER_BOUND" promoted || die "no replica was promoted within $FAILOVER_BOUND s"
promoted_at=$(elapsed "$start")
# The other replica follows the primary the sentinels name. On a busy machine they may judge the
# new primary down too and fail over once more (seen in make test, beside integration_production):
# then the other one of the two must follow, so both are read again on each try.
other_follows() {
  new=$(sentinel_master_port t0)
  new_name=$(server_name "$new")
  other=s1
  [ "$new_name" = s1 ] && other=s2
  [ -n "$new_name" ] && follows "${port[$other]}" "$new"
}
wait_until "$FAILOVER_BOUND" other_follows ||
  die "$other does not follow the new primary ${new_name:-(port $new, none of the replicas)}: $(cli "${port[$other]}" INFO replication | tr -d '\r' | grep -E '^(role|master_port|master_link_status):' | tr '\n' ' ')"
followed_at=$(elapsed "$start")
wait_until "$FAILOVER_BOUND" sentinels_agree "$new" || fail "the three sentinels do not all name $new"
echo "   failover: $new_name (port $new) is the primary after $promoted_at s;" \
     "$other follows it after $followed_at s"
missing=$(keys_missing "$new" 1 "$KEYS_BEFORE")
[ "$missing" = 0 ] || fail "$missing of the $KEYS_BEFORE acknowledged keys are missing on $new_name"

if [ -n "${pid[node]:-}" ]; then
  sleep 2 # writes on the new primary too
  touch "$work/client.stop"
  if wait "${pid[node]}"; then
    sed 's/^/   /' "$work/client.out"
  else
    sed 's/^/   /' "$work/client.out" "$work/client.log" >&2
    fail "the ioredis client's check failed"
  fi
  pid[node]=
fi

echo "== restart of the old primary s0 on port $old"
launch s0 || die "s0 did not restart"
start=$(now)
# On a slow build (ASan) on a busy machine the sentinels may judge the new primary down too and fail
# over once more: s0 must follow whichever primary they name now.
follows_current() { follows "$old" "$(sentinel_master_port t0)"; }
wait_until "$REJOIN_BOUND" follows_current ||
  die "the sentinels did not make s0 a replica of $(sentinel_master_port t0) within $REJOIN_BOUND s: $(cli "$old" INFO replication | tr -d '\r' | grep -E '^(role|master_port|master_link_status):' | tr '\n' ' ')"
if [ "$(sentinel_master_port t0)" != "$new" ]; then
  new=$(sentinel_master_port t0)
  new_name=$(server_name "$new")
  echo "   (the sentinels failed over once more meanwhile: $new_name is the primary now)"
fi
echo "   s0 follows $new_name after $(elapsed "$start") s"
missing=$(keys_missing "$old" 1 "$KEYS_BEFORE")
[ "$missing" = 0 ] || fail "$missing of the $KEYS_BEFORE keys are missing on s0 after it rejoined"
# The sentinels list it among the replicas again (it never left their list, but as s_down).
wait_until "$DISCOVERY_BOUND" discovered || fail "the sentinels do not list 2 sentinels and 2 replicas after the rejoin"
# Every sentinel must also have seen s0 report role:slave. One that last saw it as the primary it was
# (its INFO of a replica comes every 10 s) would take s0's promotion by the manual failover below for
# a stale role and turn it back into a replica at once (Sentinel's +convert-to-slave), and the
# failover would time out: seen in CI.
sees_replica() { # sees_replica SENTINEL PORT: its SENTINEL REPLICAS says PORT reported role slave
  cli "${port[$1]}" SENTINEL REPLICAS mymaster |
    awk -v p="$2" 'key == "port" { at = $0 } key == "role-reported" && at == p { r = $0 }
                   { key = $0 } END { exit r == "slave" ? 0 : 1 }'
}
all_see_rejoined() { sees_replica t0 "$old" && sees_replica t1 "$old" && sees_replica t2 "$old"; }
wait_until "$REJOIN_BOUND" all_see_rejoined || fail "not every sentinel saw s0 as a replica"

echo "== SENTINEL FAILOVER mymaster"
acked=$(write_acked "$new" $((KEYS_BEFORE + 1)) $((2 * KEYS_BEFORE)))
[ "$acked" = "$KEYS_BEFORE" ] || fail "WAIT 1 1000 acknowledged $acked of $KEYS_BEFORE writes on $new_name"
# Sentinel refuses while it sees no replica fit to promote (-NOGOODSLAVE, e.g. before its next INFO
# of s0), or while its last failover is still settling (-INPROG): try again for a while.
start=$(now)
reply=
for ((i = 0; i < 20 * SLOW; i++)); do
  reply=$(cli "${port[t1]}" SENTINEL FAILOVER mymaster)
  [ "$reply" = OK ] && break
  sleep 0.5
done
[ "$reply" = OK ] || die "SENTINEL FAILOVER mymaster answered [$reply]"
echo "   SENTINEL FAILOVER answered OK after $(elapsed "$start") s ($((i + 1)) tries)"
previous=$new
moved() {
  local p
  p=$(sentinel_master_port t1)
  [ -n "$p" ] && [ "$p" != "$previous" ] && is_primary "$p"
}
wait_until "$FAILOVER_BOUND" moved || die "SENTINEL FAILOVER did not move the primary within $FAILOVER_BOUND s"
new=$(sentinel_master_port t1)
new_name=$(server_name "$new")
[ -n "$new_name" ] || die "the sentinels name port $new, which is none of the servers"
for s in s0 s1 s2; do
  [ "$s" = "$new_name" ] && continue
  wait_until "$FAILOVER_BOUND" follows "${port[$s]}" "$new" || fail "$s does not follow $new_name after the manual failover"
done
wait_until "$FAILOVER_BOUND" sentinels_agree "$new" || fail "the three sentinels do not all name $new"
echo "   $new_name (port $new) is the primary after $(elapsed "$start") s; the two others follow it"
missing=$(keys_missing "$new" 1 $((2 * KEYS_BEFORE)))
[ "$missing" = 0 ] || fail "$missing of the $((2 * KEYS_BEFORE)) acknowledged keys are missing on $new_name"
[ "$(cli "$new" SET after-manual yes)" = OK ] || fail "the new primary $new_name refuses a write"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all sentinel checks passed ($kind)"
