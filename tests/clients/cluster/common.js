// Shared by the cluster client tests (tests/clients/cluster/run.sh made the cluster and exports
// RBKV_CLUSTER_PORTS, every node's port): the nodes, a plain connection to one, and the slot
// move that makes a -MOVED (move_slot.sh, the steps of redis-cli --cluster reshard).
'use strict';

const path = require('node:path');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const Redis = require('ioredis');

const ports = (process.env.RBKV_CLUSTER_PORTS || '').split(',').filter(Boolean).map(Number);
if (ports.length === 0) {
  throw new Error('RBKV_CLUSTER_PORTS is not set: run these tests through tests/clients/cluster/run.sh');
}
const host = '127.0.0.1';

// A plain (not cluster) connection to one node; the caller quits it.
function nodeClient(port) {
  return new Redis({ host, port, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
}

async function onNode(port, fn) {
  const c = nodeClient(port);
  try {
    await c.connect();
    return await fn(c);
  } finally {
    c.disconnect();
  }
}

async function primaries() {
  const out = [];
  for (const p of ports) {
    const role = await onNode(p, (c) => c.call('ROLE'));
    if (role[0] === 'master') out.push(p);
  }
  return out;
}

// Each replica's port mapped to its primary's port (ROLE).
async function replicas() {
  const out = new Map();
  for (const p of ports) {
    const role = await onNode(p, (c) => c.call('ROLE'));
    if (role[0] === 'slave') out.set(p, Number(role[2]));
  }
  return out;
}

// How many times the node on port ran command (INFO commandstats).
async function calls(port, command) {
  const info = await onNode(port, (c) => c.info('commandstats'));
  const m = new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info);
  return m ? Number(m[1]) : 0;
}

// Until every replica holds as many keys as its primary (no write runs meanwhile).
async function waitSynced(deadlineMs = 30000) {
  const deadline = Date.now() + deadlineMs;
  for (const [rep, prim] of await replicas()) {
    for (;;) {
      const [a, b] = [await onNode(rep, (c) => c.dbsize()), await onNode(prim, (c) => c.dbsize())];
      if (a === b) break;
      assert.ok(Date.now() < deadline, `replica ${rep} never caught up with ${prim}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

// Until CLUSTER SLOTS on every node names a replica for each range: as Redis 7.0, a replica is
// left out until the node has heard, by gossip, of a replication offset from it.
async function waitReplicasListed(deadlineMs = 30000) {
  const deadline = Date.now() + deadlineMs;
  for (const p of ports) {
    while (!(await onNode(p, (c) => c.call('CLUSTER', 'SLOTS'))).every((r) => r.length > 3)) {
      assert.ok(Date.now() < deadline, `node ${p} lists no replica for some slots`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

// How many -MOVED the node on port has answered (INFO errorstats).
async function movedCount(port) {
  const info = await onNode(port, (c) => c.info('errorstats'));
  const m = /errorstat_MOVED:count=(\d+)/.exec(info);
  return m ? Number(m[1]) : 0;
}

// The primary that serves slot, by CLUSTER SLOTS on any node.
async function ownerOf(slot) {
  const ranges = await onNode(ports[0], (c) => c.call('CLUSTER', 'SLOTS'));
  for (const [lo, hi, primary] of ranges) if (slot >= lo && slot <= hi) return Number(primary[1]);
  throw new Error(`no primary serves slot ${slot}`);
}

// Moves slot with its keys to the primary on port `to`; returns the old owner's port.
function moveSlot(slot, to) {
  const out = execFileSync(path.join(__dirname, 'move_slot.sh'), [String(slot), String(to), ...ports.map(String)],
    { encoding: 'utf8' });
  return Number(out.trim());
}

// The checks both Node.js clients pass, through any client whose set resolves 'OK' and get the
// value: KEYS keys under prefix written and read back, and every primary holding some of them.
async function checkSpread(client, prefix, keys) {
  for (let i = 0; i < keys; i++) assert.equal(await client.set(`${prefix}${i}`, `v${i}`), 'OK');
  for (let i = 0; i < keys; i++) assert.equal(await client.get(`${prefix}${i}`), `v${i}`);
  const masters = await primaries();
  assert.equal(masters.length, 3);
  for (const p of masters) {
    const n = await onNode(p, (c) => c.dbsize());
    assert.ok(n > keys / 6, `primary ${p} holds only ${n} keys`);
  }
}

// key written, its slot moved behind the client's back: the client's next read goes to the old
// owner, which answers -MOVED (counted in its errorstats), and must end at the new owner.
async function checkMoved(client, key) {
  assert.equal(await client.set(key, 'before'), 'OK');
  const slot = Number(await onNode(ports[0], (c) => c.cluster('KEYSLOT', key)));
  const owner = await ownerOf(slot);
  const target = (await primaries()).find((p) => p !== owner);
  const before = await movedCount(owner);
  assert.equal(moveSlot(slot, target), owner);
  assert.equal(await client.get(key), 'before');
  assert.ok((await movedCount(owner)) > before, 'the old owner never answered -MOVED');
  assert.equal(await client.set(key, 'after'), 'OK');
  assert.equal(await onNode(target, (c) => c.get(key)), 'after');
}

module.exports = {
  host, ports, onNode, replicas, calls, waitSynced, waitReplicasListed, checkSpread, checkMoved,
};
