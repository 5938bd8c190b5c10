#!/usr/bin/env bash
# Real cluster clients against rbkv in cluster mode: starts six SERVER_BIN nodes, makes them a
# cluster of 3 primaries and 3 replicas with `redis-cli --cluster create --cluster-replicas 1`
# (tests/integration/cluster.sh), then runs, one after the other on that cluster, redis-py's
# RedisCluster (Debian's python3-redis, redis_py_cluster.py) and, with node's test runner,
# ioredis's Cluster and node-redis's createCluster (pinned by ../package-lock.json). Each writes
# keys across the slots and reads them back, runs a pipeline (and a MULTI, where the client has
# one in cluster mode) on one slot and follows a -MOVED after move_slot.sh moved a key's slot;
# redis-py (read_from_replicas), ioredis (scaleReads: 'slave') and node-redis (useReplicas: true)
# also read from the replicas. Then, one library at a time, a failover: redis_py_failover.py,
# failover_ioredis.js and failover_node_redis.js each kill a primary that has a replica and go on
# writing and reading once the replica is promoted (node-redis through a new client: it reads the
# slot map again only after a -MOVED); after each, the killed node is started again from its
# nodes.conf and must rejoin as a replica.
# usage: tests/clients/cluster/run.sh SERVER_BIN
# Exits 77 (skip) when redis-cli, python3-redis, node or npm is missing (scripts/deps.sh test) or
# the npm packages cannot be installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }
server_bin=$1
python=/usr/bin/python3 # Debian's packages are installed for it, not for another python3 on the PATH

command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not installed (scripts/deps.sh test)"; exit 77; }
"$python" -c 'import redis.cluster' 2>/dev/null ||
  { echo "SKIP: python3-redis not installed (scripts/deps.sh test)"; exit 77; }
# shellcheck source-path=SCRIPTDIR source=../../integration/npm_ci.sh
. "$here/../../integration/npm_ci.sh"
npm_ci_or_skip "$here/.."

work=$(mktemp -d "${TMPDIR:-/tmp}/rbkv-cluster-clients-XXXXXX") || exit 1
# shellcheck disable=SC2034 # read by instances.sh
READY_SECONDS=30
# shellcheck source-path=SCRIPTDIR source=../../integration/cluster.sh
. "$here/../../integration/cluster.sh"
cluster_create 3 1 || exit 1
RBKV_CLUSTER_PORTS=$(IFS=,; echo "${CLUSTER_PORTS[*]}")
export RBKV_CLUSTER_PORTS

status=0
"$python" "$here/redis_py_cluster.py" || status=1
(cd "$here" && node --test --test-reporter=spec ./*.test.js) || status=1
# Every client's writes left the cluster whole.
redis-cli --cluster check "127.0.0.1:${CLUSTER_PORTS[0]}" | grep -q 'All 16384 slots covered' ||
  { echo "FAIL: --cluster check after the clients" >&2; status=1; }

# rejoined NAME: NAME, started again, is a replica and the cluster is whole.
# shellcheck disable=SC2317 # called through wait_until
rejoined() {
  [ "$(cli "${port[$1]}" ROLE | head -1)" = slave ] && cluster_settled
}

# failover CMD...: runs CMD with every node's pid in RBKV_CLUSTER_PIDS, then starts again the
# primary it killed, which must come back as a replica of its promoted replica.
failover() {
  local i name p rc=0
  RBKV_CLUSTER_PIDS=$(for ((i = 0; i < ${#CLUSTER_PORTS[@]}; i++)); do printf '%s,' "${pid[n$i]}"; done)
  export RBKV_CLUSTER_PIDS=${RBKV_CLUSTER_PIDS%,}
  "$@" || rc=1
  for ((i = 0; i < ${#CLUSTER_PORTS[@]}; i++)); do
    name=n$i
    kill -0 "${pid[$name]}" 2>/dev/null && continue
    wait "${pid[$name]}" 2>/dev/null
    launch "$name" || { echo "FAIL: $name did not start again" >&2; return 1; }
    wait_until 60 rejoined "$name" || {
      echo "FAIL: $name did not rejoin as a replica; its ROLE and the cluster as each node sees it:" >&2
      cli "${port[$name]}" ROLE | head -1 >&2
      redis-cli --cluster check "127.0.0.1:${CLUSTER_PORTS[0]}" >&2
      for p in "${CLUSTER_PORTS[@]}"; do cli "$p" CLUSTER NODES >&2; done
      return 1
    }
  done
  return "$rc"
}
if [ "$status" -eq 0 ]; then
  failover "$python" "$here/redis_py_failover.py" || status=1
fi
if [ "$status" -eq 0 ]; then
  # shellcheck disable=SC2016 # $1 is the inner shell's
  failover sh -c 'cd "$1" && node --test --test-reporter=spec failover_ioredis.js' sh "$here" ||
    status=1
fi
if [ "$status" -eq 0 ]; then
  # shellcheck disable=SC2016 # $1 is the inner shell's
  failover sh -c 'cd "$1" && node --test --test-reporter=spec failover_node_redis.js' sh "$here" ||
    status=1
fi
exit "$status"
