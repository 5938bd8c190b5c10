// ioredis's Cluster against an rbkv cluster of 3 primaries and 3 replicas (run.sh): keys across
// every slot written and read back, a pipeline and a MULTI on one slot, and a -MOVED after the
// slot of a key the client had already mapped moved to another primary.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { Cluster } = require('ioredis');
const { host, ports, checkSpread, checkMoved } = require('./common');

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
