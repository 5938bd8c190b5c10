"""redis-py's RedisCluster through a failover, on the cluster tests/clients/cluster/run.sh made
(RBKV_CLUSTER_PORTS and RBKV_CLUSTER_PIDS: every node's port and process, in the same order).

The client writes keys across the slots; once the replicas hold them, a primary that has a
replica (not the one of slot 0, below) is killed (SIGKILL). The client keeps writing: its commands fail until the replica is
promoted, then it refreshes its slot map and every write and read succeeds again, on the
promoted replica, and every key written before the kill is there. run.sh restarts the killed
node afterwards. Exits non-zero on the first failure."""
import os
import signal
import sys
import time

from redis.cluster import ClusterNode, RedisCluster

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from redis_py_cluster import node, replicas, wait_synced  # noqa: E402

PORTS = [int(p) for p in os.environ["RBKV_CLUSTER_PORTS"].split(",")]
PIDS = [int(p) for p in os.environ["RBKV_CLUSTER_PIDS"].split(",")]
KEYS = 1000
DEADLINE_S = 90


def main():
    rc = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", p) for p in PORTS],
                      decode_responses=True)
    for i in range(KEYS):
        assert rc.set(f"pyf:{i}", f"v{i}") is True
    wait_synced()
    reps = replicas()
    # Not the primary of slot 0, the first node in redis-py's map: when that one is down, redis-py
    # 4.3.4's refresh opens a new connection to it first, deep-copies its options for that and
    # fails ("cannot pickle '_thread.lock' object"), so the client never learns of the failover
    # (the same against redis-server). Any other primary is passed over as the refresh goes on.
    first = rc.nodes_manager.get_node_from_slot(0).port
    victim = min(p for p in reps.values() if p != first)
    heir = next(r for r, p in reps.items() if p == victim)
    key = next(f"pyf:{i}" for i in range(KEYS) if rc.get_node_from_key(f"pyf:{i}").port == victim)
    os.kill(PIDS[PORTS.index(victim)], signal.SIGKILL)

    # Writes to the killed primary's slots fail until its replica takes over.
    t0 = time.monotonic()
    failures = 0
    while True:
        try:
            if rc.set(key, "after"):
                break
        except Exception:  # ConnectionError, ClusterDownError...: what the client raises then
            failures += 1
        assert time.monotonic() - t0 < DEADLINE_S, "no write succeeded after the kill"
        time.sleep(0.1)
    print(f"redis-py: first write {time.monotonic() - t0:.1f} s after the kill "
          f"({failures} failed before)")
    assert node(heir).execute_command("ROLE")[0] == "master", "the replica was not promoted"
    assert rc.get_node_from_key(key).port == heir, "the client still maps the slot elsewhere"
    assert node(heir).get(key) == "after"
    for i in range(KEYS):
        want = "after" if f"pyf:{i}" == key else f"v{i}"
        got = rc.get(f"pyf:{i}")
        assert got == want, (i, got)
    for i in range(KEYS):
        assert rc.set(f"pyf:{i}", f"w{i}") is True
        assert rc.get(f"pyf:{i}") == f"w{i}"
    rc.close()
    print("redis-py RedisCluster failover: ok")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: redis-py RedisCluster failover: {e!r}", file=sys.stderr)
        raise
