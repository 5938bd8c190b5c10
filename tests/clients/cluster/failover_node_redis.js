// node-redis's createCluster (useReplicas: true) through a failover, on the cluster run.sh made
// (RBKV_CLUSTER_PORTS and RBKV_CLUSTER_PIDS: every node's port and process, in the same order).
// Run by run.sh as `node --test failover_node_redis.js` after the other tests, since it kills a
// primary (run.sh restarts it afterwards).
// node-redis 4 reads the slot map only when it connects and after a -MOVED or -ASK; a dead
// primary answers neither (node-redis#2806), so an application makes a new client when a command
// fails on a lost connection, as this test does. With reconnectStrategy false and no offline
// queue, a command for the dead node fails at once instead of waiting for it. A new client's
// discovery connects to every primary and replica CLUSTER SLOTS names, so it succeeds only once
// the map names the promoted replica and leaves the dead node out.
// The client writes keys across the slots and reads them from the replicas; once the replicas
// hold them, a primary that has a replica is killed (SIGKILL). Writes fail until the replica is
// promoted, then a new client writes and reads on the promoted replica, and every key written
// before the kill is there.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { createCluster } = require('redis');
const { host, ports, onNode, replicas, calls, waitSynced, waitReplicasListed } = require('./common');

const pids = (process.env.RBKV_CLUSTER_PIDS || '').split(',').filter(Boolean).map(Number);
const KEYS = 1000;
const DEADLINE_MS = 90000;

async function connect() {
  const cluster = createCluster({
    rootNodes: ports.map((port) => ({ url: `redis://${host}:${port}` })),
    useReplicas: true,
    defaults: { socket: { reconnectStrategy: false }, disableOfflineQueue: true },
  });
  cluster.on('error', () => {}); // surfaced through the rejected commands instead
  try {
    await cluster.connect();
  } catch (err) {
    await cluster.disconnect().catch(() => {});
    throw err;
  }
  return cluster;
}

// op(), again while it fails with -CLUSTERDOWN: a node that has not yet heard of the promotion
// still has the cluster down (redis-server 7.0.15 too, so the first write on the promoted replica
// may come before every node of the other shards is back to cluster_state:ok).
async function untilUp(op) {
  const deadline = Date.now() + 30000;
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if (!String(err.message).startsWith('CLUSTERDOWN') || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

// Until get(k) gives want: a read may go to a replica that has not replayed the write yet.
async function readsBack(cluster, k, want) {
  const deadline = Date.now() + 30000;
  while ((await untilUp(() => cluster.get(k))) !== want) {
    assert.ok(Date.now() < deadline, `${k} never read back as ${want}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('replica reads, then writes and reads go on after a primary is killed', async () => {
  assert.equal(pids.length, ports.length, 'RBKV_CLUSTER_PIDS is not set');
  await waitReplicasListed();
  let cluster = await connect();
  try {
    for (let i = 0; i < KEYS; i++) assert.equal(await cluster.set(`nrf:${i}`, `v${i}`), 'OK');
    await waitSynced();
    const reps = await replicas();
    const before = new Map();
    for (const r of reps.keys()) before.set(r, await calls(r, 'get'));
    for (let i = 0; i < KEYS; i++) assert.equal(await cluster.get(`nrf:${i}`), `v${i}`);
    for (const r of reps.keys()) assert.ok((await calls(r, 'get')) > before.get(r), `replica ${r} answered no GET`);

    const victim = Math.min(...reps.values());
    const heir = [...reps].find(([, p]) => p === victim)[0];
    const slots = await onNode(heir, (c) => c.call('CLUSTER', 'SLOTS'));
    const owned = slots.filter((r) => Number(r[2][1]) === victim);
    let key = null;
    for (let i = 0; i < KEYS && !key; i++) {
      const slot = Number(await onNode(heir, (c) => c.cluster('KEYSLOT', `nrf:${i}`)));
      if (owned.some(([lo, hi]) => slot >= lo && slot <= hi)) key = `nrf:${i}`;
    }
    assert.ok(key, `no key on the primary ${victim}`);
    process.kill(pids[ports.indexOf(victim)], 'SIGKILL');

    const t0 = Date.now();
    let failures = 0;
    let clients = 0;
    for (;;) {
      try {
        if (!cluster) {
          cluster = await connect();
          clients++;
        }
        if ((await cluster.set(key, 'after')) === 'OK') break;
      } catch {
        failures++;
        // A lost connection is no -MOVED: only a new client reads the map again.
        if (cluster) await cluster.disconnect().catch(() => {});
        cluster = null;
      }
      assert.ok(Date.now() - t0 < DEADLINE_MS, 'no write succeeded after the kill');
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`node-redis: first write ${((Date.now() - t0) / 1000).toFixed(1)} s after the kill ` +
      `(${failures} failed before, ${clients} new clients)`);
    assert.equal((await onNode(heir, (c) => c.call('ROLE')))[0], 'master', 'the replica was not promoted');
    assert.equal(await onNode(heir, (c) => c.get(key)), 'after');
    for (let i = 0; i < KEYS; i++) {
      const k = `nrf:${i}`;
      await readsBack(cluster, k, k === key ? 'after' : `v${i}`);
    }
    for (let i = 0; i < KEYS; i++) {
      assert.equal(await untilUp(() => cluster.set(`nrf:${i}`, `w${i}`)), 'OK');
      await readsBack(cluster, `nrf:${i}`, `w${i}`);
    }
  } finally {
    if (cluster) await cluster.disconnect().catch(() => {});
  }
});
