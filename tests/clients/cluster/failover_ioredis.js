// ioredis's Cluster through a failover, on the cluster run.sh made (RBKV_CLUSTER_PORTS and
// RBKV_CLUSTER_PIDS: every node's port and process, in the same order). Run by run.sh as
// `node --test failover_ioredis.js`, apart from the *.test.js files, after the other tests, since
// it kills a primary (run.sh restarts it afterwards).
// The client writes keys across the slots; once the replicas hold them, a primary that has a
// replica is killed (SIGKILL). The client keeps writing: its commands fail until the replica is
// promoted, then it refreshes its slot map and every write and read succeeds again, on the
// promoted replica, and every key written before the kill is there.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { Cluster } = require('ioredis');
const { host, ports, onNode, replicas, waitSynced } = require('./common');

const pids = (process.env.RBKV_CLUSTER_PIDS || '').split(',').filter(Boolean).map(Number);
const KEYS = 1000;
const DEADLINE_MS = 90000;

test('writes and reads go on after a primary is killed', async () => {
  assert.equal(pids.length, ports.length, 'RBKV_CLUSTER_PIDS is not set');
  const cluster = new Cluster(ports.map((port) => ({ host, port })), { lazyConnect: true });
  cluster.on('error', () => {}); // surfaced through the rejected commands instead
  try {
    await cluster.connect();
    for (let i = 0; i < KEYS; i++) assert.equal(await cluster.set(`iof:${i}`, `v${i}`), 'OK');
    await waitSynced();
    const reps = await replicas();
    const victim = Math.min(...reps.values());
    const heir = [...reps].find(([, p]) => p === victim)[0];
    const slots = await onNode(heir, (c) => c.call('CLUSTER', 'SLOTS'));
    const owned = slots.filter((r) => Number(r[2][1]) === victim);
    let key = null;
    for (let i = 0; i < KEYS && !key; i++) {
      const slot = Number(await onNode(heir, (c) => c.cluster('KEYSLOT', `iof:${i}`)));
      if (owned.some(([lo, hi]) => slot >= lo && slot <= hi)) key = `iof:${i}`;
    }
    assert.ok(key, `no key on the primary ${victim}`);
    process.kill(pids[ports.indexOf(victim)], 'SIGKILL');

    const t0 = Date.now();
    let failures = 0;
    for (;;) {
      try {
        if ((await cluster.set(key, 'after')) === 'OK') break;
      } catch {
        failures++;
      }
      assert.ok(Date.now() - t0 < DEADLINE_MS, 'no write succeeded after the kill');
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`ioredis: first write ${((Date.now() - t0) / 1000).toFixed(1)} s after the kill ` +
      `(${failures} failed before)`);
    assert.equal((await onNode(heir, (c) => c.call('ROLE')))[0], 'master', 'the replica was not promoted');
    assert.equal(await onNode(heir, (c) => c.get(key)), 'after');
    for (let i = 0; i < KEYS; i++) {
      const k = `iof:${i}`;
      assert.equal(await cluster.get(k), k === key ? 'after' : `v${i}`);
    }
    for (let i = 0; i < KEYS; i++) {
      assert.equal(await cluster.set(`iof:${i}`, `w${i}`), 'OK');
      assert.equal(await cluster.get(`iof:${i}`), `w${i}`);
    }
  } finally {
    cluster.disconnect();
  }
});
