// Pub/sub through the subscriber APIs of node-redis (v4: a duplicate()d client in subscriber
// mode, subscribe/pSubscribe with listeners) and ioredis (v5: subscribe/psubscribe and the
// 'message'/'pmessage' events), over RESP2 as both speak it. Channels are this file's own
// ("js:*"), so the other files running in parallel are not disturbed.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { createClient } = require('redis');
const Redis = require('ioredis');
const { host, port } = require('./common');

// Resolves with the first n values fn is called with.
function collect(n) {
  const got = [];
  let done;
  const all = new Promise((resolve) => { done = resolve; });
  return {
    push: (v) => { got.push(v); if (got.length === n) done(got); },
    all,
  };
}

test('node-redis: subscribe, pSubscribe, messages in order, unsubscribe', async () => {
  const pub = createClient({ socket: { host, port, reconnectStrategy: false } });
  pub.on('error', () => {});
  await pub.connect();
  const sub = pub.duplicate();
  sub.on('error', () => {});
  await sub.connect();
  const plain = collect(3);
  const pattern = collect(3);
  await sub.subscribe('js:nr', (message, channel) => plain.push(`${channel}=${message}`));
  await sub.pSubscribe('js:n*', (message, channel) => pattern.push(`${channel}=${message}`));
  for (const m of ['a', 'b', 'c']) {
    // The channel subscriber and the pattern subscriber are one connection: two deliveries.
    assert.equal(await pub.publish('js:nr', m), 2);
  }
  assert.deepEqual(await plain.all, ['js:nr=a', 'js:nr=b', 'js:nr=c']);
  assert.deepEqual(await pattern.all, ['js:nr=a', 'js:nr=b', 'js:nr=c']);
  assert.deepEqual(await pub.pubSubChannels('js:*'), ['js:nr']);
  assert.deepEqual({ ...(await pub.pubSubNumSub('js:nr')) }, { 'js:nr': 1 });
  await sub.unsubscribe('js:nr');
  await sub.pUnsubscribe('js:n*');
  assert.equal(await pub.publish('js:nr', 'gone'), 0);
  await sub.quit();
  await pub.quit();
});

test('ioredis: subscribe, psubscribe, message and pmessage events', async () => {
  const options = { host, port, maxRetriesPerRequest: 1, retryStrategy: () => null };
  const pub = new Redis(options);
  const sub = new Redis(options);
  pub.on('error', () => {});
  sub.on('error', () => {});
  const msgs = collect(2);
  const pmsgs = collect(2);
  sub.on('message', (channel, message) => msgs.push(`${channel}=${message}`));
  sub.on('pmessage', (pat, channel, message) => pmsgs.push(`${pat}:${channel}=${message}`));
  assert.equal(await sub.subscribe('js:io', 'js:io2'), 2);
  assert.equal(await sub.psubscribe('js:i*'), 3);
  assert.equal(await pub.publish('js:io', 'x'), 2);
  assert.equal(await pub.publish('js:io2', 'y'), 2);
  assert.deepEqual(await msgs.all, ['js:io=x', 'js:io2=y']);
  assert.deepEqual(await pmsgs.all, ['js:i*:js:io=x', 'js:i*:js:io2=y']);
  // ioredis itself keeps other commands off a subscribed connection.
  await assert.rejects(sub.call('GET', 'k'), /subscriber mode/);
  // (Without arguments ioredis waits until no subscription is left, patterns included, so each
  // call names what it leaves; the same hangs against redis-server.)
  assert.equal(await sub.unsubscribe('js:io', 'js:io2'), 1);
  assert.equal(await sub.punsubscribe('js:i*'), 0);
  assert.equal(await pub.publish('js:io', 'z'), 0);
  sub.disconnect();
  pub.disconnect();
});
