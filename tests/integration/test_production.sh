#!/usr/bin/env bash
# The recommended production configuration (issue #23; docs/operations.md, "Recommended production
# configuration") works as documented: a primary, a replica and a Debian redis-sentinel, all TLS only,
# with the users of the documented ACL file. The files are docs/examples/production/{rbkv.conf,
# users.acl,sentinel.conf}; the test first checks that docs/operations.md shows each of them as it is,
# then uses them with only these changes: /etc/rbkv/ becomes the temp dir (certificates made here by
# openssl), and lines appended to a copy put each process on a free loopback port with a dir of its
# own (`tls-port`, `bind 127.0.0.1`, `dir`, the replica's `replicaof`, the sentinel's primary address).
# Checked:
#   docs        each fenced block after an <!-- example: FILE --> marker is FILE
#   refused     plaintext to the TLS port (no reply), no plaintext listener (port 0), a client
#               without a certificate, the default user (NOAUTH; AUTH default ... WRONGPASS; ACL LIST
#               shows it as Redis does: off, no password, nothing allowed)
#   app         writes and reads app:*; other keys, CONFIG, FLUSHALL, KEYS are NOPERM
#   replica     syncs over TLS as user `replica` (CLIENT LIST on the primary), has the app's keys,
#               refuses writes
#   sentinel    authenticates as `sentinel` (CLIENT LIST), sees the primary up and the replica on its
#               TLS port; SENTINEL FAILOVER promotes the replica, and the old primary follows it
# usage: tests/integration/test_production.sh SERVER_BIN   (Debian's redis-server passes it too)
# Exits 77 (skip) without openssl, redis-cli or redis-sentinel (scripts/deps.sh test installs them).
# On failure the temp dir, with every log and config, is kept and its path printed.
set -u
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }
server_bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
for tool in openssl redis-cli redis-sentinel; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (scripts/deps.sh test)"; exit 77; }
done
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
examples=$repo/docs/examples/production
SLOW=${RBKV_TEST_SLOW:-1}
READY_SECONDS=$((10 * SLOW))
SYNC_BOUND=$((20 * SLOW))
FAILOVER_BOUND=$((60 * SLOW)) # SENTINEL FAILOVER to the old primary following the new one

work=$(mktemp -d "${TMPDIR:-/tmp}/rbkv-prod-XXXXXX") || exit 1
# Instances (instances.sh's pid and port) by name: p (primary), r (replica), s (sentinel); its
# hooks write_conf, instance_cmd and instance_answers are defined below.
# shellcheck source-path=SCRIPTDIR source=instances.sh
. "$here/instances.sh"
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
die() {
  echo "FAIL: $*" >&2
  exit 1
}
expect() { # expect WHAT GOT WANTED
  if [ "$2" = "$3" ]; then echo "ok - $1"; else fail "$1: got '$2', wanted '$3'"; fi
}

# ---- docs: the blocks in operations.md are the example files ----
# block FILE: the fenced block that follows the line <!-- example: FILE --> in operations.md.
block() {
  awk -v m="<!-- example: $1 -->" '$0 == m { on = 1; next }
    on && /^```/ { if (in_block) exit; in_block = 1; next } in_block' "$repo/docs/operations.md"
}
for f in rbkv.conf users.acl sentinel.conf; do
  expect "docs/operations.md shows docs/examples/production/$f" \
    "$(block "docs/examples/production/$f")" "$(cat "$examples/$f")"
done

# ---- certificates: one CA; the servers' certificate (also their client certificate as replicas and
# the sentinel's); a client's ----
mkdir -p "$work/etc/tls"
tls=$work/etc/tls
CERTS=$tls
# shellcheck source-path=SCRIPTDIR source=certs.sh
. "$here/certs.sh"
certs_basic || die "openssl could not make the certificates"
# The ACL file as documented (only its path moves), in a place the server may rewrite (ACL SAVE).
cp "$examples/users.acl" "$work/etc/users.acl"

# ---- processes ----
# cli PORT [redis-cli args...]: redis-cli over TLS with the client certificate.
cli() {
  local p=$1
  shift
  timeout 20 redis-cli -p "$p" --tls --cacert "$tls/ca.crt" --cert "$tls/client.crt" \
    --key "$tls/client.key" --no-auth-warning "$@" 2>&1
}
as_admin() { local p=$1; shift; cli "$p" --user admin --pass admin-CHANGE-ME "$@"; }
as_app() { local p=$1; shift; cli "$p" --user app --pass app-CHANGE-ME "$@"; }

# write_conf NAME: NAME's config: the example with /etc/rbkv/ moved into the temp dir, then the
# lines that place it on this machine.
write_conf() {
  local name=$1 src=$examples/rbkv.conf
  [ "$name" = s ] && src=$examples/sentinel.conf
  {
    sed "s#/etc/rbkv/#$work/etc/#g" "$src"
    echo "tls-port ${port[$name]}"
    echo "bind 127.0.0.1"
    echo "dir $work/$name.dir"
    [ "$name" = r ] && echo "replicaof 127.0.0.1 ${port[p]}"
  } >"$work/$name.conf"
  # The primary's address: the documented 10.0.0.1 6379 is this test's primary.
  [ "$name" = s ] && sed -i "s/^sentinel monitor mymaster 10.0.0.1 6379 /sentinel monitor mymaster 127.0.0.1 ${port[p]} /" \
    "$work/s.conf"
  return 0
}
instance_cmd() {
  INSTANCE_CMD=("$server_bin" "$work/$1.conf")
  [ "$1" = s ] && INSTANCE_CMD=(redis-sentinel "$work/s.conf")
  return 0
}
# Over TLS, as the default user: PONG from the sentinel, NOAUTH from a server. redis-cli's own
# errors ("Could not connect") are no answer.
instance_answers() {
  case "$(cli "${port[$1]}" PING)" in PONG | *NOAUTH*) return 0 ;; esac
  return 1
}
info_field() { as_admin "$1" INFO replication | tr -d '\r' | sed -n "s/^$2://p"; }
follows() { # follows PORT PRIMARY_PORT
  [ "$(info_field "$1" master_link_status)" = up ] && [ "$(info_field "$1" master_port)" = "$2" ]
}
# client_users PORT TEXT: the user= of the clients on PORT whose CLIENT LIST line has TEXT.
client_users() { as_admin "$1" CLIENT LIST | grep -- "$2" | sed 's/.* user=\([^ ]*\).*/\1/' | sort -u; }

echo "== $server_bin, in $work"
start_instance p || die "the primary did not start"
start_instance r || die "the replica did not start"
echo "   primary on ${port[p]}, replica on ${port[r]} (TLS only)"

# ---- refused ----
out=$(timeout 10 redis-cli -p "${port[p]}" PING 2>&1)
case "$out" in PONG | *NOAUTH* | *NOPERM*) fail "plaintext PING to the TLS port was answered: $out" ;; *) echo "ok - plaintext to the TLS port gets no reply" ;; esac
expect "no plaintext listener (port)" "$(as_admin "${port[p]}" CONFIG GET port | tail -1)" 0
out=$(timeout 10 redis-cli -p "${port[p]}" --tls --cacert "$tls/ca.crt" PING 2>&1)
case "$out" in PONG | *NOAUTH*) fail "a client without a certificate was served: $out" ;; *) echo "ok - a client without a certificate is refused" ;; esac
expect "the default user, without AUTH" "$(cli "${port[p]}" GET app:x)" "NOAUTH Authentication required."
expect "the default user, with a password" "$(cli "${port[p]}" --user default --pass anything GET app:x | head -1)" \
  "AUTH failed: WRONGPASS invalid username-password pair or user is disabled."
expect "protected mode" "$(as_admin "${port[p]}" CONFIG GET protected-mode | tail -1)" yes
# The file's default user starts empty, as in Redis: no nopass left for protected mode to see (it would
# refuse every remote client), no permission left for a later `ACL SETUSER default on` to grant.
expect "the default user as the file makes it" "$(as_admin "${port[p]}" ACL LIST | grep '^user default ')" \
  "user default off resetchannels -@all"

# ---- app ----
expect "app: SET in its prefix" "$(as_app "${port[p]}" SET app:greeting hello)" OK
expect "app: GET in its prefix" "$(as_app "${port[p]}" GET app:greeting)" hello
expect "app: MULTI/EXEC in its prefix" "$(printf 'MULTI\nINCR app:n\nINCR app:n\nEXEC\n' | as_app "${port[p]}" | tr '\n' ' ')" \
  "OK QUEUED QUEUED 1 2 "
expect "app: a key outside its prefix" "$(as_app "${port[p]}" SET other v)" \
  "NOPERM this user has no permissions to access one of the keys used as arguments"
expect "app: CONFIG" "$(as_app "${port[p]}" CONFIG GET port)" \
  "NOPERM this user has no permissions to run the 'config|get' command"
expect "app: FLUSHALL" "$(as_app "${port[p]}" FLUSHALL)" \
  "NOPERM this user has no permissions to run the 'flushall' command"
expect "app: KEYS" "$(as_app "${port[p]}" KEYS 'app:*')" \
  "NOPERM this user has no permissions to run the 'keys' command"

# ---- replica ----
wait_until "$SYNC_BOUND" follows "${port[r]}" "${port[p]}" ||
  die "the replica never synced (its log: $(tail -n 5 "$work/r.log"))"
echo "ok - the replica syncs over TLS"
expect "the replica's link, as user" "$(client_users "${port[p]}" 'flags=S')" replica
as_app "${port[p]}" SET app:after-sync yes >/dev/null
expect "WAIT for the replica" "$(as_app "${port[p]}" WAIT 1 5000)" 1
expect "the replica has the app's keys" "$(as_app "${port[r]}" MGET app:greeting app:after-sync | tr '\n' ' ')" "hello yes "
expect "the replica refuses the app's writes" "$(as_app "${port[r]}" SET app:x y)" \
  "READONLY You can't write against a read only replica."

# ---- sentinel ----
start_instance s || die "the sentinel did not start"
echo "   sentinel on ${port[s]} (TLS only)"
sentinel() { cli "${port[s]}" SENTINEL "$@"; }
# field NAME: the value after the line NAME in a SENTINEL MASTER/REPLICAS reply on stdin.
field() { sed -n "/^$1\$/{n;p;q}"; }
sees_replica() {
  local out
  out=$(sentinel REPLICAS mymaster)
  [ "$(field port <<<"$out")" = "${port[r]}" ] && [ "$(field flags <<<"$out")" = slave ] &&
    [ "$(field master-link-status <<<"$out")" = ok ]
}
if wait_until "$SYNC_BOUND" sees_replica; then
  echo "ok - the sentinel sees the replica on its TLS port"
else
  fail "the sentinel does not see the replica: $(sentinel REPLICAS mymaster | tr '\n' ' ')"
fi
expect "the sentinel sees the primary up" "$(sentinel MASTER mymaster | field flags)" master
expect "the sentinel's links, as user" "$(client_users "${port[p]}" 'name=sentinel-')" sentinel

# SENTINEL FAILOVER: the replica is made primary (MULTI, SLAVEOF NO ONE, CONFIG REWRITE, CLIENT KILL,
# EXEC as user sentinel), the old primary its replica (which authenticates as user replica).
expect "SENTINEL FAILOVER" "$(sentinel FAILOVER mymaster)" OK
failed_over() {
  [ "$(sentinel GET-MASTER-ADDR-BY-NAME mymaster | sed -n 2p)" = "${port[r]}" ] &&
    [ "$(info_field "${port[r]}" role)" = master ] && follows "${port[p]}" "${port[r]}"
}
if wait_until "$FAILOVER_BOUND" failed_over; then
  echo "ok - after SENTINEL FAILOVER the replica is primary and the old primary follows it"
  expect "the new primary's writes" "$(as_app "${port[r]}" SET app:after-failover yes)" OK
  as_app "${port[r]}" WAIT 1 5000 >/dev/null
  expect "the old primary has them" "$(as_app "${port[p]}" GET app:after-failover)" yes
  # CONFIG REWRITE (by the sentinel, as user sentinel) kept the promotion in the config files.
  expect "the promoted replica's config file names no primary" "$(grep -ciE '^(replicaof|slaveof) ' "$work/r.conf")" 0
  expect "the old primary's config file names the new one" \
    "$(grep -iE '^(replicaof|slaveof) ' "$work/p.conf" | tail -1 | awk '{ print $3 }')" "${port[r]}"
else
  fail "no failover within $FAILOVER_BOUND s: sentinel says $(sentinel GET-MASTER-ADDR-BY-NAME mymaster | tr '\n' ' ')," \
    "replica role $(info_field "${port[r]}" role), old primary link $(info_field "${port[p]}" master_link_status)"
  tail -n 15 "$work/s.log" >&2
fi

[ "$failures" -eq 0 ] || die "$failures check(s) failed"
echo "PRODUCTION CONFIG OK"
