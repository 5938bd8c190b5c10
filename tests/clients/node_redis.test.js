// node-redis (the npm package `redis`, v4) against rbkv through its ordinary API: connection
// options that send commands at connect (SELECT, CLIENT SETNAME), SET options, pipelines,
// MULTI/EXEC, WATCH conflicts, the sorted-set helpers, scanIterator, and the ordered commands
// through sendCommand. Database 1 is this file's.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { createClient, WatchError } = require('redis');
const { host, port, sortedKeys, makeKeys } = require('./common');

const DB = 1;
let client;

test.before(async () => {
  client = createClient({ socket: { host, port, reconnectStrategy: false }, database: DB, name: 'nr-test' });
  client.on('error', () => {}); // surfaced through the rejected commands instead
  await client.connect();
  await client.flushDb();
});

test.after(async () => {
  if (client?.isOpen) await client.quit();
});

test('connect: SELECT and CLIENT SETNAME from the options', async () => {
  assert.equal(await client.clientGetName(), 'nr-test');
  assert.equal(await client.ping(), 'PONG');
  await client.set('db-probe', 'x');
  const info = await client.info('keyspace');
  assert.match(info, new RegExp(`db${DB}:keys=\\d+`));
  await client.del('db-probe');
});

test('SET with options, GET', async () => {
  assert.equal(await client.set('s:a', 'one', { EX: 100, NX: true }), 'OK');
  assert.equal(await client.set('s:a', 'two', { NX: true }), null);
  assert.equal(await client.set('s:a', 'three', { XX: true, GET: true }), 'one');
  assert.equal(await client.get('s:a'), 'three');
  assert.equal(await client.set('s:b', 'v', { PX: 50000 }), 'OK');
  const ttl = await client.pTTL('s:b');
  assert.ok(ttl > 0 && ttl <= 50000, `PTTL ${ttl}`);
  assert.equal(await client.get('s:missing'), null);
  const bin = Buffer.from([0, 255, 13, 10, 58]);
  await client.set('s:bin', bin);
  const back = await client.get(client.commandOptions({ returnBuffers: true }), 's:bin');
  assert.deepEqual(back, bin);
});

test('pipeline: many commands, replies in order', async () => {
  const n = 1000;
  const p = client.multi();
  for (let i = 0; i < n; i++) p.set(`p:${i}`, String(i));
  for (let i = 0; i < n; i++) p.incr(`p:${i}`);
  const replies = await p.execAsPipeline();
  assert.equal(replies.length, 2 * n);
  for (let i = 0; i < n; i++) {
    assert.equal(replies[i], 'OK');
    assert.equal(replies[n + i], i + 1);
  }
  // Commands issued without awaiting are pipelined on the one socket too.
  const gets = await Promise.all(makeKeys('p:', n).map((k) => client.get(k)));
  gets.forEach((v, i) => assert.equal(v, String(i + 1)));
});

test('multi()/exec(): one array reply, run-time errors in place', async () => {
  await client.set('m:str', 'text');
  const replies = await client.multi().set('m:a', '1').incr('m:a').get('m:a').exec();
  assert.deepEqual(replies, ['OK', 2, '2']);
  // An error at run time is that command's element; the others still ran.
  await assert.rejects(client.multi().incr('m:str').set('m:b', 'ok').exec(), (err) => {
    assert.match(String(err.replies?.[0] ?? err), /not an integer|WRONGTYPE|ERR/);
    return true;
  });
  assert.equal(await client.get('m:b'), 'ok');
});

test('WATCH: a conflicting write makes EXEC fail with WatchError', async () => {
  await client.set('w:k', '1');
  const other = client.duplicate();
  other.on('error', () => {});
  await other.connect();
  try {
    await client.executeIsolated(async (iso) => {
      await iso.watch('w:k');
      await other.set('w:k', '2'); // another connection changes the watched key
      await assert.rejects(iso.multi().set('w:k', '3').exec(), WatchError);
    });
    assert.equal(await client.get('w:k'), '2');
    // Without a conflict the same transaction commits.
    await client.executeIsolated(async (iso) => {
      await iso.watch('w:k');
      assert.deepEqual(await iso.multi().set('w:k', '4').exec(), ['OK']);
    });
    assert.equal(await client.get('w:k'), '4');
  } finally {
    await other.quit();
  }
});

test('sorted sets: zAdd, zRange, zRangeWithScores, zRangeByLex, zRank, zScore', async () => {
  assert.equal(
    await client.zAdd('z', [
      { score: 2, value: 'b' },
      { score: 1, value: 'a' },
      { score: 3, value: 'c' },
      { score: 2, value: 'bb' },
    ]),
    4,
  );
  assert.deepEqual(await client.zRange('z', 0, -1), ['a', 'b', 'bb', 'c']);
  assert.deepEqual(await client.zRange('z', 0, 1, { REV: true }), ['c', 'bb']);
  assert.deepEqual(await client.zRangeWithScores('z', 0, 1), [
    { value: 'a', score: 1 },
    { value: 'b', score: 2 },
  ]);
  assert.deepEqual(await client.zRangeByScore('z', 2, '+inf'), ['b', 'bb', 'c']);
  assert.deepEqual(await client.zRange('z', '(a', '+', { BY: 'LEX', LIMIT: { offset: 0, count: 2 } }), ['b', 'bb']);
  assert.equal(await client.zRank('z', 'c'), 3);
  assert.equal(await client.zScore('z', 'bb'), 2);
  assert.equal(await client.zCard('z'), 4);
  assert.equal(await client.zIncrBy('z', 10, 'a'), 11);
  assert.deepEqual(await client.zPopMin('z'), { value: 'b', score: 2 });
});

// node-redis v4 turns SCAN's cursor into a JS Number (commands/SCAN.js, transformReply:
// `cursor: Number(cursor)`) and sends that Number back, so rbkv keeps its cursors within 53 bits.
test('scanIterator returns every key once, in ascending order', async () => {
  const keys = makeKeys('scan:', 2500);
  await client.mSet(keys.flatMap((k) => [k, 'v']));
  const seen = [];
  for await (const key of client.scanIterator({ MATCH: 'scan:*', COUNT: 100 })) seen.push(key);
  assert.deepEqual(seen, sortedKeys(keys));
  const all = [];
  for await (const key of client.scanIterator({ COUNT: 37 })) all.push(key);
  assert.deepEqual(all, sortedKeys(all));
  assert.equal(new Set(all).size, all.length);
  assert.equal(all.length, await client.dbSize());
});

test('raw SCAN through sendCommand returns every key once, in ascending order', async () => {
  const keys = makeKeys('raw:', 1500);
  await client.mSet(keys.flatMap((k) => [k, 'v']));
  const seen = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.sendCommand(['SCAN', cursor, 'MATCH', 'raw:*', 'COUNT', '64']);
    cursor = next;
    seen.push(...batch);
  } while (cursor !== '0');
  assert.deepEqual(seen, sortedKeys(keys));
});

test('ordered commands through sendCommand', async () => {
  await client.flushDb();
  await client.mSet(['user:1', 'alice', 'user:2', 'bob', 'user:10', 'carol', 'users', 'x', 'order:7', 'pending']);
  const cmd = (...args) => client.sendCommand(args);
  assert.deepEqual(await cmd('KRANGE', '0', '-1'), ['order:7', 'user:1', 'user:10', 'user:2', 'users']);
  assert.deepEqual(await cmd('KRANGE', '[user:', '+', 'BYLEX', 'LIMIT', '0', '2'), ['user:1', 'user:10']);
  assert.deepEqual(await cmd('KPREFIX', 'user:', 'WITHVALUES'), ['user:1', 'alice', 'user:10', 'carol', 'user:2', 'bob']);
  assert.equal(await cmd('KCOUNT', 'PREFIX', 'user:'), 3);
  assert.equal(await cmd('KRANK', 'user:2'), 3);
  assert.equal(await cmd('KRANK', 'nope'), null);
  assert.deepEqual(await cmd('KNEXT', 'user:1', '2'), ['user:10', 'user:2']);
  assert.deepEqual(await cmd('KLAST'), ['users']);
  assert.equal(await cmd('KDELRANGE', 'PREFIX', 'order:'), 1);
  await assert.rejects(cmd('KRANGE', 'a', 'b', 'BYLEX'), /min or max not valid string range item/);
});
