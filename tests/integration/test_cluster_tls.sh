#!/usr/bin/env bash
# The cluster bus over TLS (tls-cluster yes, issue 35; server/cluster/cluster_bus.c), with
# certificates made at test time by openssl (certs.sh). Three nodes of SERVER_BIN, each with a
# plaintext port, a tls-port and a bus port, all with tls-cluster yes:
#   create      redis-cli --tls --cluster create forms the cluster (exit 0, every slot covered)
#               and --cluster check agrees; the bus port speaks TLS (openssl s_client's handshake)
#   ports       over TLS, CLUSTER NODES and SLOTS name the tls-ports; to a plaintext client the
#               plaintext ports (Redis 7.0's pport); CLUSTER SHARDS names both, port and tls-port
#   keys        a key set through one node (redis-cli --tls -c) is read through another, over TLS
#               and over plaintext (-MOVED names the port of the client's kind)
#   MIGRATE     the key's slot moves (SETSLOT IMPORTING/MIGRATING, MIGRATE to the target's
#               tls-port, which it reaches over TLS, SETSLOT NODE): read through either node
#   ordered     (rbkv) KCOUNT, KSPLIT and KRANGE across the cluster: each node asks the others
#               over TLS (their tls-ports)
#   pub/sub     a PUBLISH crosses the TLS bus
#   mixed       a redis-server 7.0.15 node with tls-cluster yes joins (redis-cli --tls --cluster
#               add-node): every node sees every link up, --cluster check passes, and a PUBLISH
#               crosses between the kinds both ways
# usage: tests/integration/test_cluster_tls.sh SERVER_BIN (Debian's redis-server passes it too)
# Exits 77 (skip) without openssl, redis-cli or redis-server.
set -u
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }
server_bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
for tool in openssl redis-cli redis-server; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (scripts/deps.sh test)"; exit 77; }
done
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rbkv-cluster-tls-XXXXXX") || exit 1
READY_SECONDS=$((10 * ${RBKV_TEST_SLOW:-1}))
WAIT_SECONDS=$((40 * ${RBKV_TEST_SLOW:-1}))
# shellcheck source-path=SCRIPTDIR source=instances.sh
. "$here/instances.sh"
declare -A tport bport

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
  [ "$2" = "$3" ] || fail "$1: got '$2', wanted '$3'"
}

CERTS=$work/certs
mkdir -p "$CERTS"
# shellcheck source-path=SCRIPTDIR source=certs.sh
. "$here/certs.sh"
certs_basic ||
  die "openssl could not make the certificates"

# write_conf NAME: a cluster node with its three ports, TLS on the bus and for replication.
write_conf() {
  tport[$1]=$(free_port "${port[@]}" "${tport[@]}" "${bport[@]}")
  bport[$1]=$(free_port "${port[@]}" "${tport[@]}" "${bport[@]}")
  cat >"$work/$1.conf" <<EOF
port ${port[$1]}
tls-port ${tport[$1]}
cluster-port ${bport[$1]}
bind 127.0.0.1
dir $work/$1.dir
cluster-enabled yes
cluster-config-file nodes.conf
cluster-node-timeout 3000
tls-cluster yes
tls-replication yes
tls-cert-file $CERTS/server.crt
tls-key-file $CERTS/server.key
tls-ca-cert-file $CERTS/ca.crt
appendonly no
save ""
EOF
}
instance_cmd() {
  case "$1" in
    r*) INSTANCE_CMD=(redis-server "$work/$1.conf") ;;
    *) INSTANCE_CMD=("$server_bin" "$work/$1.conf") ;;
  esac
}
instance_answers() { [ "$(plain "$1" PING)" = PONG ]; }
plain() { # plain NAME ARGS...: redis-cli to NAME's plaintext port
  local name=$1
  shift
  timeout 20 redis-cli -p "${port[$name]}" "$@" 2>&1
}
tls() { # tls NAME ARGS...: redis-cli --tls to NAME's tls-port
  local name=$1
  shift
  timeout 20 redis-cli -p "${tport[$name]}" --tls --cacert "$CERTS/ca.crt" \
    --cert "$CERTS/client.crt" --key "$CERTS/client.key" "$@" 2>&1
}
cluster_ok() { # cluster_ok NAME COUNT: NAME is ok, knows COUNT nodes, all linked
  local info nodes
  info=$(plain "$1" CLUSTER INFO | tr -d '\r')
  nodes=$(plain "$1" CLUSTER NODES)
  grep -qx "cluster_state:ok" <<<"$info" && grep -qx "cluster_known_nodes:$2" <<<"$info" &&
    [ "$(grep -c ' connected' <<<"$nodes")" -eq "$2" ] && ! grep -q 'fail\|handshake' <<<"$nodes"
}
all_ok() { # all_ok COUNT NAME...
  local count=$1 n
  shift
  for n in "$@"; do cluster_ok "$n" "$count" || return 1; done
}
# subscribe NAME CHANNEL FILE: a redis-cli subscriber of NAME's tls-port, writing to FILE.
subscribe() {
  tls "$1" SUBSCRIBE "$2" >"$3" &
  pid[sub_$1]=$!
  wait_until 10 grep -qs "^$2\$" "$3" || fail "SUBSCRIBE on $1 never answered"
}
# published FROM CHANNEL MESSAGE FILE...: PUBLISH on FROM, then each FILE shows MESSAGE.
published() {
  local from=$1 ch=$2 msg=$3 f
  shift 3
  tls "$from" PUBLISH "$ch" "$msg" >/dev/null
  for f in "$@"; do
    wait_until 10 grep -qsx "$msg" "$f" || fail "PUBLISH $msg on $from never reached $f"
  done
}

# ---- create ----
for n in n0 n1 n2; do start_instance "$n" || die "$n did not start"; done
out=$(tls n0 --cluster create "127.0.0.1:${tport[n0]}" "127.0.0.1:${tport[n1]}" \
  "127.0.0.1:${tport[n2]}" --cluster-yes)
rc=$?
[ $rc -eq 0 ] && grep -q "\[OK\] All 16384 slots covered." <<<"$out" ||
  die "redis-cli --tls --cluster create: $rc $out"
wait_until "$WAIT_SECONDS" all_ok 3 n0 n1 n2 || die "the TLS cluster never became ok"
out=$(tls n1 --cluster check "127.0.0.1:${tport[n1]}")
rc=$?
[ $rc -eq 0 ] && grep -q "\[OK\] All nodes agree about slots configuration." <<<"$out" ||
  fail "--cluster check over TLS: $rc $out"
# The bus port speaks TLS: openssl completes a handshake there.
timeout 10 openssl s_client -connect "127.0.0.1:${bport[n0]}" -CAfile "$CERTS/ca.crt" \
  -cert "$CERTS/client.crt" -key "$CERTS/client.key" -verify_return_error </dev/null \
  >"$work/s_client.out" 2>&1 || fail "no TLS handshake on the bus port: $(tail -3 "$work/s_client.out")"

# ---- ports ----
id0=$(plain n0 CLUSTER MYID)
line=$(tls n0 CLUSTER NODES | grep myself)
[[ $line == "$id0 127.0.0.1:${tport[n0]}@${bport[n0]} "* ]] || fail "NODES over TLS: $line"
line=$(plain n0 CLUSTER NODES | grep myself)
[[ $line == "$id0 127.0.0.1:${port[n0]}@${bport[n0]} "* ]] || fail "NODES over plaintext: $line"
line=$(plain n1 CLUSTER NODES | grep "^$id0")
[[ $line == "$id0 127.0.0.1:${port[n0]}@${bport[n0]} "* ]] ||
  fail "another node's plaintext port (gossip's pport): $line"
slots=$(tls n1 CLUSTER SLOTS | tr '\n' ' ')
[[ $slots == *" ${tport[n0]} $id0 "* ]] || fail "SLOTS over TLS: $slots"
slots=$(plain n1 CLUSTER SLOTS | tr '\n' ' ')
[[ $slots == *" ${port[n0]} $id0 "* ]] || fail "SLOTS over plaintext: $slots"
shards=$(plain n2 CLUSTER SHARDS | tr '\n' ' ')
[[ $shards == *"$id0 port ${port[n0]} tls-port ${tport[n0]} "* ]] || fail "SHARDS: $shards"

# ---- keys ----
expect "SET through n0" "$(tls n0 -c SET foo bar)" OK
expect "GET through n1" "$(tls n1 -c GET foo)" bar
expect "GET through n2 over plaintext" "$(plain n2 -c GET foo)" bar
moved=$(plain n2 GET foo)
owner=$(plain n0 CLUSTER KEYSLOT foo)
case $moved in
  "MOVED $owner 127.0.0.1:${port[n0]}" | "MOVED $owner 127.0.0.1:${port[n1]}" | bar) ;;
  *) fail "plaintext MOVED names a plaintext port: $moved" ;;
esac

# ---- MIGRATE over TLS: foo's slot moves from its owner to another node ----
slot=$(plain n0 CLUSTER KEYSLOT foo)
owner=
for n in n0 n1 n2; do [ "$(plain "$n" GET foo)" = bar ] && owner=$n; done
[ -n "$owner" ] || die "no node serves foo"
case $owner in n0) target=n1 ;; *) target=n0 ;; esac
oid=$(plain "$owner" CLUSTER MYID)
tid=$(plain "$target" CLUSTER MYID)
expect "SETSLOT IMPORTING" "$(plain "$target" CLUSTER SETSLOT "$slot" IMPORTING "$oid")" OK
expect "SETSLOT MIGRATING" "$(plain "$owner" CLUSTER SETSLOT "$slot" MIGRATING "$tid")" OK
expect "MIGRATE to the target's tls-port" \
  "$(plain "$owner" MIGRATE 127.0.0.1 "${tport[$target]}" foo 0 5000)" OK
# The target first (it takes a new config epoch), then the others.
for n in "$target" n0 n1 n2; do
  expect "SETSLOT NODE on $n" "$(plain "$n" CLUSTER SETSLOT "$slot" NODE "$tid")" OK
done
expect "the migrated key on its new node" "$(tls "$target" GET foo)" bar
expect "the migrated key through its old node (-c)" "$(tls "$owner" -c GET foo)" bar
expect "the old node holds it no more" "$(plain "$owner" DBSIZE)" 0

# ---- ordered queries across the cluster: the query links speak TLS (rbkv only) ----
if [ "$(plain n0 COMMAND INFO KSPLIT | head -1)" = ksplit ]; then
  for k in a1 a2 a3 a4 a5 a6 a7 a8 a9; do tls n0 -c SET "$k" v >/dev/null; done
  for n in n0 n1 n2; do
    expect "KCOUNT - + on $n" "$(plain "$n" KCOUNT - +)" 10
    expect "KSPLIT 2 on $n over TLS" "$(tls "$n" KSPLIT 2)" a6
    expect "KRANGE by rank on $n" "$(plain "$n" KRANGE -2 -1 | tr '\n' ' ')" "a9 foo "
  done
fi

# ---- pub/sub over the TLS bus ----
subscribe n1 news "$work/sub_n1"
published n0 news over-tls "$work/sub_n1"

# ---- mixed: a redis-server node joins the TLS cluster ----
start_instance r0 || die "redis-server with tls-cluster did not start"
out=$(tls n0 --cluster add-node "127.0.0.1:${tport[r0]}" "127.0.0.1:${tport[n0]}")
rc=$?
[ $rc -eq 0 ] || fail "add-node of redis-server over TLS: $rc $out"
wait_until "$WAIT_SECONDS" all_ok 4 n0 n1 n2 r0 || fail "the mixed TLS cluster never settled"
out=$(tls r0 --cluster check "127.0.0.1:${tport[r0]}")
rc=$?
[ $rc -eq 0 ] && grep -q "\[OK\] All 16384 slots covered." <<<"$out" ||
  fail "--cluster check from redis-server: $rc $out"
subscribe r0 mix "$work/sub_r0"
subscribe n2 mix "$work/sub_n2"
published n0 mix from-rbkv "$work/sub_r0" "$work/sub_n2"
published r0 mix from-redis "$work/sub_n2"

for n in n0 n1 n2 r0; do
  kill -TERM "${pid[$n]}" 2>/dev/null
done
for n in n0 n1 n2 r0; do
  wait "${pid[$n]}"
  rc=$?
  pid[$n]=
  [ $rc -eq 0 ] || fail "$n exited with $rc after SIGTERM"
done
if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "cluster over TLS: all checks passed"
