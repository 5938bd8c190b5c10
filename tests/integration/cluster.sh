# shellcheck shell=bash disable=SC2154 # work and server_bin: the caller's
# A cluster of rbkv nodes for the script tests, made the way an operator makes one:
# `redis-cli --cluster create --cluster-replicas R`. Sourced, not run, after the caller has set
# `work` (its temp dir, removed at exit by instances.sh), `server_bin` and READY_SECONDS.
# It provides (besides instances.sh's pid, port, wait_until):
#   cluster_create P R   starts P*(1+R) nodes n0, n1, ... (each with its bus on a free port:
#                        the client port + 10000 may not fit) and creates the cluster with P
#                        primaries and R replicas each; returns once every node says
#                        cluster_state:ok and `redis-cli --cluster check` finds every slot
#                        covered and every node agreeing. 0, or 1 with the reason on stderr.
#   CLUSTER_PORTS        the nodes' client ports, n0 first (after cluster_create)
#   cli PORT ARGS...     redis-cli -p PORT ARGS...
declare -A bus
CLUSTER_PORTS=()
CLUSTER_NODE_TIMEOUT=${CLUSTER_NODE_TIMEOUT:-5000}

write_conf() {
  bus[$1]=$(free_port "${port[@]}" "${bus[@]}")
  printf '%s\n' "port ${port[$1]}" "bind 127.0.0.1" "cluster-enabled yes" \
    "cluster-port ${bus[$1]}" "cluster-node-timeout $CLUSTER_NODE_TIMEOUT" \
    "appendonly no" "save \"\"" "loglevel notice" >"$work/$1.conf"
}
instance_cmd() { INSTANCE_CMD=("$server_bin" "$work/$1.conf"); }
instance_answers() { [ -n "$(redis-cli -p "${port[$1]}" PING 2>/dev/null)" ]; }

# shellcheck source-path=SCRIPTDIR source=instances.sh
. "$(dirname "${BASH_SOURCE[0]}")/instances.sh"

cli() { redis-cli -p "$1" "${@:2}"; }

# cluster_settled: every node sees the whole map served, and --cluster check agrees.
cluster_settled() {
  local p out
  for p in "${CLUSTER_PORTS[@]}"; do
    cli "$p" CLUSTER INFO | grep -q '^cluster_state:ok' || return 1
  done
  out=$(redis-cli --cluster check "127.0.0.1:${CLUSTER_PORTS[0]}" 2>&1) || return 1
  grep -q 'All nodes agree about slots configuration' <<<"$out" &&
    grep -q 'All 16384 slots covered' <<<"$out"
}

cluster_create() {
  local primaries=$1 replicas=$2 i addrs=() out
  for ((i = 0; i < primaries * (1 + replicas); i++)); do
    start_instance "n$i" || return 1
    CLUSTER_PORTS+=("${port[n$i]}")
    addrs+=("127.0.0.1:${port[n$i]}")
  done
  if ! out=$(redis-cli --cluster create "${addrs[@]}" --cluster-replicas "$replicas" \
               --cluster-yes 2>&1); then
    echo "redis-cli --cluster create failed:" >&2
    echo "$out" >&2
    return 1
  fi
  wait_until 60 cluster_settled || {
    echo "the cluster never settled:" >&2
    redis-cli --cluster check "127.0.0.1:${CLUSTER_PORTS[0]}" >&2
    return 1
  }
}
