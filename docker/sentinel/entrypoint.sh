#!/bin/sh
# Writes /data/sentinel.conf from the environment, unless a previous run left one (Sentinel keeps its
# ID, epochs and the primary it last followed there), then execs redis-sentinel on it.
#   SENTINEL_MASTER_HOST   the primary to monitor at first (a compose service name)   required
#   SENTINEL_MASTER_PORT   its port                                                   6379
#   SENTINEL_QUORUM        sentinels that must agree the primary is down              2
#   SENTINEL_ANNOUNCE      the name this sentinel gives the others (its service name) required
#   RBKV_PASSWORD          the servers' password (sentinel auth-pass)                 optional
# Hostnames, not addresses: container addresses change when a container is recreated.
set -eu
conf=/data/sentinel.conf
if [ ! -s "$conf" ]; then
  : "${SENTINEL_MASTER_HOST:?set SENTINEL_MASTER_HOST}" "${SENTINEL_ANNOUNCE:?set SENTINEL_ANNOUNCE}"
  {
    echo "port 26379"
    echo "dir /data"
    echo "sentinel resolve-hostnames yes"
    echo "sentinel announce-hostnames yes"
    echo "sentinel announce-ip $SENTINEL_ANNOUNCE"
    echo "sentinel monitor mymaster $SENTINEL_MASTER_HOST ${SENTINEL_MASTER_PORT:-6379} ${SENTINEL_QUORUM:-2}"
    echo "sentinel down-after-milliseconds mymaster 5000"
    echo "sentinel failover-timeout mymaster 60000"
    echo "sentinel parallel-syncs mymaster 1"
    if [ -n "${RBKV_PASSWORD:-}" ]; then echo "sentinel auth-pass mymaster $RBKV_PASSWORD"; fi
  } >"$conf"
fi
exec redis-sentinel "$conf" "$@"
