// ioredis (v5) against rbkv through its ordinary API: its connect sequence (INFO as the ready
// check, CLIENT SETNAME, SELECT), SET options, pipeline(), multi()/exec(), WATCH conflicts, the
// sorted-set commands, scanStream, and the ordered commands through call(). Database 2 is this
// file's.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const Redis = require('ioredis');
const { host, port, sortedKeys, makeKeys } = require('./common');

const DB = 2;
const options = { host, port, db: DB, connectionName: 'io-test', maxRetriesPerRequest: 1, retryStrategy: () => null };
let redis;

test.before(async () => {
  redis = new Redis({ ...options, lazyConnect: true });
  redis.on('error', () => {}); // surfaced through the rejected commands instead
  await redis.connect(); // resolves once the INFO ready check passed
  await redis.flushdb();
});

test.after(async () => {
  if (redis) await redis.quit();
});

test('connect: ready check, CLIENT SETNAME and SELECT from the options', async () => {
  assert.equal(redis.status, 'ready');
  assert.equal(await redis.client('GETNAME'), 'io-test');
  await redis.set('db-probe', 'x');
  assert.match(await redis.info('keyspace'), new RegExp(`db${DB}:keys=\\d+`));
  await redis.del('db-probe');
});

test('SET with options, GET', async () => {
  assert.equal(await redis.set('s:a', 'one', 'EX', 100, 'NX'), 'OK');
  assert.equal(await redis.set('s:a', 'two', 'NX'), null);
  assert.equal(await redis.set('s:a', 'three', 'XX', 'GET'), 'one');
  assert.equal(await redis.get('s:a'), 'three');
  assert.equal(await redis.set('s:b', 'v', 'PX', 50000), 'OK');
  const ttl = await redis.pttl('s:b');
  assert.ok(ttl > 0 && ttl <= 50000, `PTTL ${ttl}`);
  const bin = Buffer.from([0, 255, 13, 10, 58]);
  await redis.set('s:bin', bin);
  assert.deepEqual(await redis.getBuffer('s:bin'), bin);
});

test('pipeline: many commands, replies in order', async () => {
  const n = 2000;
  const p = redis.pipeline();
  for (let i = 0; i < n; i++) p.set(`p:${i}`, String(i));
  for (let i = 0; i < n; i++) p.incrby(`p:${i}`, 2);
  p.get('p:nope');
  const replies = await p.exec();
  assert.equal(replies.length, 2 * n + 1);
  for (let i = 0; i < n; i++) {
    assert.deepEqual(replies[i], [null, 'OK']);
    assert.deepEqual(replies[n + i], [null, i + 2]);
  }
  assert.deepEqual(replies[2 * n], [null, null]);
  // ioredis also pipelines commands issued in the same tick on its own.
  const gets = await Promise.all(makeKeys('p:', n).map((k) => redis.get(k)));
  gets.forEach((v, i) => assert.equal(v, String(i + 2)));
});

test('multi()/exec(): one array reply, run-time errors in place', async () => {
  await redis.set('m:str', 'text');
  assert.deepEqual(await redis.multi().set('m:a', '1').incr('m:a').get('m:a').exec(), [
    [null, 'OK'],
    [null, 2],
    [null, '2'],
  ]);
  const replies = await redis.multi().incr('m:str').set('m:b', 'ok').exec();
  assert.ok(replies[0][0] instanceof Error, 'INCR of a non-integer fails inside EXEC');
  assert.match(replies[0][0].message, /not an integer/);
  assert.deepEqual(replies[1], [null, 'OK']);
  // A command the server refuses at queue time aborts the whole transaction.
  await assert.rejects(redis.multi().set('m:c', '1').call('NOSUCHCOMMAND').exec(), /EXECABORT/);
  assert.equal(await redis.exists('m:c'), 0);
});

test('WATCH: a conflicting write makes EXEC answer null', async () => {
  const a = new Redis(options);
  const b = new Redis(options);
  a.on('error', () => {});
  b.on('error', () => {});
  try {
    await a.set('w:k', '1');
    await a.watch('w:k');
    await b.set('w:k', '2');
    assert.equal(await a.multi().set('w:k', '3').exec(), null);
    assert.equal(await a.get('w:k'), '2');
    await a.watch('w:k');
    assert.deepEqual(await a.multi().set('w:k', '4').exec(), [[null, 'OK']]);
    assert.equal(await b.get('w:k'), '4');
  } finally {
    await a.quit();
    await b.quit();
  }
});

test('sorted sets: zadd, zrange WITHSCORES, BYLEX, zrank, zscore, zpopmin', async () => {
  assert.equal(await redis.zadd('z', 2, 'b', 1, 'a', 3, 'c', 2, 'bb'), 4);
  assert.deepEqual(await redis.zrange('z', 0, -1), ['a', 'b', 'bb', 'c']);
  assert.deepEqual(await redis.zrange('z', 0, 1, 'WITHSCORES'), ['a', '1', 'b', '2']);
  assert.deepEqual(await redis.zrange('z', '+', '(a', 'BYLEX', 'REV', 'LIMIT', 0, 2), ['c', 'bb']);
  assert.deepEqual(await redis.zrangebyscore('z', '(1', '+inf'), ['b', 'bb', 'c']);
  assert.equal(await redis.zrank('z', 'c'), 3);
  assert.equal(await redis.zscore('z', 'bb'), '2');
  assert.equal(await redis.zadd('z', 'NX', 'CH', 9, 'a', 4, 'd'), 1);
  assert.deepEqual(await redis.zpopmin('z'), ['a', '1']);
  await redis.set('z:str', 'x');
  await assert.rejects(redis.zadd('z:str', 1, 'm'), /WRONGTYPE/);
});

test('scanStream returns every key once, in ascending order', async () => {
  const keys = makeKeys('scan:', 2500);
  await redis.mset(...keys.flatMap((k) => [k, 'v']));
  const collect = (opts) =>
    new Promise((resolve, reject) => {
      const seen = [];
      const stream = redis.scanStream(opts);
      stream.on('data', (batch) => seen.push(...batch));
      stream.on('end', () => resolve(seen));
      stream.on('error', reject);
    });
  assert.deepEqual(await collect({ match: 'scan:*', count: 100 }), sortedKeys(keys));
  const all = await collect({ count: 41 });
  assert.deepEqual(all, sortedKeys(all));
  assert.equal(new Set(all).size, all.length);
  assert.equal(all.length, await redis.dbsize());
});

test('ordered commands through call()', async () => {
  await redis.flushdb();
  await redis.mset('user:1', 'alice', 'user:2', 'bob', 'user:10', 'carol', 'users', 'x', 'order:7', 'pending');
  assert.deepEqual(await redis.call('KRANGE', 0, -1), ['order:7', 'user:1', 'user:10', 'user:2', 'users']);
  assert.deepEqual(await redis.call('KRANGE', '+', '[user:', 'BYLEX', 'REV', 'WITHVALUES'), [
    'users', 'x', 'user:2', 'bob', 'user:10', 'carol', 'user:1', 'alice',
  ]);
  assert.deepEqual(await redis.call('KPREFIX', 'user:', 'LIMIT', 1, 5), ['user:10', 'user:2']);
  assert.equal(await redis.call('KCOUNT', '[user:', '(user;'), 3);
  assert.equal(await redis.call('KREVRANK', 'user:2'), 1);
  assert.deepEqual(await redis.call('KPREV', 'user:1'), ['order:7']);
  assert.deepEqual(await redis.call('KSPLIT', 2), ['user:10']);
  // Ordered commands pipeline and run inside MULTI like any other.
  const replies = await redis.pipeline().call('KFIRST', 2).call('KCOUNT', '-', '+').exec();
  assert.deepEqual(replies, [[null, ['order:7', 'user:1']], [null, 5]]);
  assert.deepEqual(await redis.multi().call('KDELRANGE', 'PREFIX', 'order:').call('KFIRST').exec(), [
    [null, 1],
    [null, ['user:1']],
  ]);
});
