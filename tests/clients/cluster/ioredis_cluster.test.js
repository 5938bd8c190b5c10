// ioredis's Cluster against an rbkv cluster of 3 primaries and 3 replicas (run.sh): keys across
// every slot written and read back, a pipeline and a MULTI on one slot, and a -MOVED after the
// slot of a key the client had already mapped moved to another primary; and a second client with
// scaleReads: 'slave' whose reads every replica answers (after the READONLY it sent).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { Cluster } = require('ioredis');
const {
  host, ports, replicas, calls, waitSynced, waitReplicasListed, checkSpread, checkMoved,
} = require('./common');

const KEYS = 3000;
let cluster;

test.before(async () => {
  cluster = new Cluster([{ host, port: ports[0] }], { lazyConnect: true, slotsRefreshTimeout: 5000 });
  cluster.on('error', () => {}); // surfaced through the rejected commands instead
  await cluster.connect();
});

test.after(async () => {
  if (cluster) await cluster.quit();
});

test('keys across the slots, written and read back', () => checkSpread(cluster, 'io:', KEYS));

test('pipeline on one slot', async () => {
  const p = cluster.pipeline();
  for (let j = 0; j < 50; j++) p.set(`{iop}:${j}`, j).incr('{iop}:n');
  const replies = await p.exec();
  assert.deepEqual(replies, Array.from({ length: 50 }, (_, j) => [[null, 'OK'], [null, j + 1]]).flat());
  assert.equal(await cluster.get('{iop}:n'), '50');
});

test('MULTI on one slot', async () => {
  const replies = await cluster.multi().set('{iom}:a', 'x').incr('{iom}:n').incr('{iom}:n').get('{iom}:a').exec();
  assert.deepEqual(replies, [[null, 'OK'], [null, 1], [null, 2], [null, 'x']]);
  await assert.rejects(cluster.multi().set('{iom}:a', 'y').set('{other}:b', 'z').exec(), /CROSSSLOT|same slot/i);
});

test('-MOVED after the slot moved', () => checkMoved(cluster, 'io:moved'));

test('reads from the replicas (scaleReads: slave)', async () => {
  await waitReplicasListed();
  const reader = new Cluster([{ host, port: ports[0] }], { lazyConnect: true, scaleReads: 'slave' });
  reader.on('error', () => {});
  try {
    await reader.connect();
    for (let i = 0; i < 1000; i++) assert.equal(await reader.set(`ior:${i}`, `v${i}`), 'OK');
    await waitSynced();
    const reps = await replicas();
    assert.equal(reps.size, 3);
    const before = new Map();
    for (const r of reps.keys()) before.set(r, await calls(r, 'get'));
    for (let i = 0; i < 1000; i++) assert.equal(await reader.get(`ior:${i}`), `v${i}`);
    for (const r of reps.keys()) {
      assert.ok((await calls(r, 'get')) > before.get(r), `replica ${r} answered no GET`);
      assert.ok((await calls(r, 'readonly')) > 0, `replica ${r} got no READONLY`);
    }
  } finally {
    reader.disconnect();
  }
});
