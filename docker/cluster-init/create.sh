#!/bin/sh
# Makes the nodes in CLUSTER_NODES ("host:port host:port ...") one cluster with
# `redis-cli --cluster create --cluster-replicas CLUSTER_REPLICAS` (default 1), then waits until the
# first node says cluster_state:ok. RBKV_PASSWORD, when set, is the nodes' password (REDISCLI_AUTH).
# Run once by compose.cluster.yaml; running it again is harmless: a first node that already serves
# every slot means the cluster was made, and it exits 0 without a change.
# CLUSTER MEET takes addresses, not names, so each service name is resolved first (getent); the
# nodes then know each other by the addresses of their containers on the compose network.
set -eu
[ -n "${CLUSTER_NODES:-}" ] || { echo "cluster-create: set CLUSTER_NODES" >&2; exit 2; }
[ -z "${RBKV_PASSWORD:-}" ] || export REDISCLI_AUTH="$RBKV_PASSWORD"

addrs=
for node in $CLUSTER_NODES; do
  host=${node%:*} port=${node##*:} tries=0 ip=
  while :; do
    ip=$(getent hosts "$host" | awk '{ print $1; exit }')
    [ -n "$ip" ] && [ "$(redis-cli -h "$ip" -p "$port" ping 2>/dev/null)" = PONG ] && break
    tries=$((tries + 1))
    [ "$tries" -lt 300 ] || { echo "cluster-create: $node did not answer within 60 s" >&2; exit 1; }
    sleep 0.2
  done
  addrs="$addrs $ip:$port"
done
# shellcheck disable=SC2086 # one address a word
set -- $addrs
first_host=${1%:*} first_port=${1##*:}

if redis-cli -h "$first_host" -p "$first_port" cluster info | grep -q '^cluster_slots_assigned:16384'; then
  echo "cluster-create: the cluster exists already"
  exit 0
fi
redis-cli --cluster create "$@" --cluster-replicas "${CLUSTER_REPLICAS:-1}" --cluster-yes
tries=0
until redis-cli -h "$first_host" -p "$first_port" cluster info | grep -q '^cluster_state:ok'; do
  tries=$((tries + 1))
  [ "$tries" -lt 300 ] || { echo "cluster-create: cluster_state never became ok" >&2; exit 1; }
  sleep 0.2
done
redis-cli --cluster check "$1"
