// node-redis's createCluster against an rbkv cluster of 3 primaries and 3 replicas (run.sh):
// keys across every slot written and read back, a pipeline and a MULTI on one slot, and a
// -MOVED after the slot of a key the client had already mapped moved to another primary; and a
// second client with useReplicas: true whose reads every replica answers (after the READONLY it
// sent).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { createCluster } = require('redis');
const {
  host, ports, replicas, calls, waitSynced, waitReplicasListed, checkSpread, checkMoved,
} = require('./common');

const KEYS = 3000;
let cluster;

test.before(async () => {
  cluster = createCluster({ rootNodes: [{ url: `redis://${host}:${ports[0]}` }] });
  cluster.on('error', () => {}); // surfaced through the rejected commands instead
  await cluster.connect();
});

test.after(async () => {
  if (cluster) await cluster.quit();
});

test('keys across the slots, written and read back', () => checkSpread(cluster, 'nr:', KEYS));

test('pipeline on one slot', async () => {
  const m = cluster.multi();
  for (let j = 0; j < 50; j++) m.set(`{nrp}:${j}`, String(j)).incr('{nrp}:n');
  const replies = await m.execAsPipeline();
  assert.deepEqual(replies, Array.from({ length: 50 }, (_, j) => ['OK', j + 1]).flat());
  assert.equal(await cluster.get('{nrp}:n'), '50');
});

test('MULTI on one slot', async () => {
  const replies = await cluster.multi().set('{nrm}:a', 'x').incr('{nrm}:n').incr('{nrm}:n').get('{nrm}:a').exec();
  assert.deepEqual(replies, ['OK', 1, 2, 'x']);
});

test('-MOVED after the slot moved', () => checkMoved(cluster, 'nr:moved'));

// node-redis takes the replicas from CLUSTER SLOTS when it connects, and spreads a read-only
// command over a slot's primary and replicas at random: 1000 GETs reach every replica.
test('reads from the replicas (useReplicas: true)', async () => {
  await waitReplicasListed();
  const reader = createCluster({ rootNodes: [{ url: `redis://${host}:${ports[0]}` }], useReplicas: true });
  reader.on('error', () => {});
  await reader.connect();
  try {
    for (let i = 0; i < 1000; i++) assert.equal(await reader.set(`nrr:${i}`, `v${i}`), 'OK');
    await waitSynced();
    const reps = await replicas();
    assert.equal(reps.size, 3);
    const before = new Map();
    for (const r of reps.keys()) before.set(r, await calls(r, 'get'));
    for (let i = 0; i < 1000; i++) assert.equal(await reader.get(`nrr:${i}`), `v${i}`);
    for (const r of reps.keys()) {
      assert.ok((await calls(r, 'get')) > before.get(r), `replica ${r} answered no GET`);
      assert.ok((await calls(r, 'readonly')) > 0, `replica ${r} got no READONLY`);
    }
  } finally {
    await reader.disconnect();
  }
});
