"""redis-py's RedisCluster (Debian's python3-redis) against an rbkv cluster that
tests/clients/cluster/run.sh made (RBKV_CLUSTER_PORTS: every node's port).

It writes keys across the slots and reads them back (every primary must hold some), runs a
pipeline on one slot (hash-tagged keys), and moves a key's slot to another primary behind the
client's back (move_slot.sh): the next read reaches the old owner, which answers -MOVED (its
INFO errorstats counts it), and the client must follow it to the new owner. Then a client with
read_from_replicas=True reads keys back: every replica answers some of the GETs (its INFO
commandstats), after the READONLY the client sent it.
Run by run.sh; exits non-zero on the first failure."""
import os
import subprocess
import sys
import time

from redis import Redis
from redis.cluster import ClusterNode, RedisCluster

HERE = os.path.dirname(os.path.abspath(__file__))
PORTS = [int(p) for p in os.environ["RBKV_CLUSTER_PORTS"].split(",")]
KEYS = 3000


def node(port):
    return Redis(host="127.0.0.1", port=port, decode_responses=True)


def primaries():
    return [p for p in PORTS if node(p).execute_command("ROLE")[0] == "master"]


def replicas():
    """Each replica's port and its primary's port."""
    out = {}
    for p in PORTS:
        role = node(p).execute_command("ROLE")
        if role[0] == "slave":
            out[p] = int(role[2])
    return out


def calls(port, command):
    stat = node(port).info("commandstats").get(f"cmdstat_{command}", {"calls": 0})
    return int(stat["calls"])


def wait_synced(deadline_s=30):
    """Until every replica holds as many keys as its primary (no write runs meanwhile)."""
    deadline = time.monotonic() + deadline_s
    for rep, prim in replicas().items():
        while node(rep).dbsize() != node(prim).dbsize():
            assert time.monotonic() < deadline, f"replica {rep} never caught up with {prim}"
            time.sleep(0.05)


def wait_replicas_listed(deadline_s=30):
    """Until CLUSTER SLOTS on every node names a replica for each range: as Redis 7.0, a replica
    is left out until the node has heard, by gossip, of a replication offset from it."""
    deadline = time.monotonic() + deadline_s
    for p in PORTS:
        while not all(len(r) > 3 for r in node(p).execute_command("CLUSTER SLOTS")):
            assert time.monotonic() < deadline, f"node {p} lists no replica for some slots"
            time.sleep(0.05)


def replica_reads():
    wait_replicas_listed()
    rr = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", PORTS[0])],
                      decode_responses=True, read_from_replicas=True)
    for i in range(KEYS // 3):
        assert rr.set(f"pyr:{i}", f"v{i}") is True
    wait_synced()
    reps = replicas()
    assert len(reps) == 3, reps
    before = {r: calls(r, "get") for r in reps}
    for i in range(KEYS // 3):
        got = rr.get(f"pyr:{i}")
        assert got == f"v{i}", (i, got)
    for r in reps:
        assert calls(r, "get") > before[r], f"replica {r} answered no GET"
        assert calls(r, "readonly") > 0, f"replica {r} got no READONLY"
    rr.close()


def moved_count(port):
    # redis-py parses "count=N" (no comma) as the string itself, "count=N,..." as a dict.
    stat = node(port).info("errorstats").get("errorstat_MOVED", "count=0")
    if isinstance(stat, dict):
        return int(stat["count"])
    return int(stat.split("=")[1])


def main():
    rc = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", PORTS[0])],
                      decode_responses=True)

    # Many keys across the slots, read back one by one and in a cross-slot MGET.
    for i in range(KEYS):
        assert rc.set(f"py:{i}", f"v{i}") is True
    for i in range(KEYS):
        got = rc.get(f"py:{i}")
        assert got == f"v{i}", (i, got)
    got = rc.mget_nonatomic([f"py:{i}" for i in range(0, KEYS, 7)])
    assert got == [f"v{i}" for i in range(0, KEYS, 7)], "mget_nonatomic"
    masters = primaries()
    assert len(masters) == 3, masters
    for p in masters:
        assert node(p).dbsize() > KEYS // 6, (p, node(p).dbsize())

    # A pipeline on one slot: every reply in order, and the writes landed.
    pipe = rc.pipeline()
    for j in range(50):
        pipe.set(f"{{pyp}}:{j}", j)
        pipe.incr("{pyp}:n")
    replies = pipe.execute()
    assert replies == [x for j in range(50) for x in (True, j + 1)], replies
    assert rc.get("{pyp}:n") == "50"
    assert rc.get("{pyp}:49") == "49"

    # Before any slot moves: redis-py 4.3.4 takes a -MOVED from a replica whose view of its
    # primary's slots lags for a failover, and marks that primary a replica in its map.
    replica_reads()

    # -MOVED: the slot goes to another primary while the client still maps it to the old one.
    key = "py:moved"
    slot = rc.keyslot(key)
    assert rc.set(key, "before")
    rc.get(key)
    owner = rc.get_node_from_key(key).port
    target = next(p for p in masters if p != owner)
    before = moved_count(owner)
    out = subprocess.run([os.path.join(HERE, "move_slot.sh"), str(slot), str(target)] +
                         [str(p) for p in PORTS], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) == owner, out.stdout
    assert rc.get(key) == "before", "read after the move"
    assert moved_count(owner) > before, "the old owner never answered -MOVED"
    assert rc.set(key, "after")
    assert node(target).get(key) == "after", "the write did not reach the new owner"
    assert rc.get_node_from_key(key).port == target
    rc.close()
    print("redis-py RedisCluster: ok")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: redis-py RedisCluster: {e!r}", file=sys.stderr)
        raise
