// ioredis (`tls: {ca, cert, key}`) and node-redis (`socket: {tls: true, ca, cert, key}`) over TLS
// with client certificates, against the tls-port run.sh opens with certificates it made: SET/GET,
// a pipeline of 1000, pub/sub, and the refusals: a client that trusts another CA refuses the
// server, and the server (tls-auth-clients yes, the default) refuses a client certificate from
// another CA. Database 3 is this file's; channels are "tls:*". Skipped when run.sh had no openssl.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { createClient } = require('redis');
const Redis = require('ioredis');
const { host } = require('./common');

const DB = 3;
const tlsPort = Number(process.env.RBKV_TLS_PORT);
const certs = process.env.RBKV_TLS_CERTS;
const skip = !tlsPort || !certs ? 'no tls-port (run.sh found no openssl)' : false;
const pem = (name) => fs.readFileSync(path.join(certs, name));
// The CA to trust and the client certificate to show: ours unless named otherwise.
const tlsOptions = (ca = 'ca', who = 'client') => ({
  ca: pem(`${ca}.crt`),
  cert: pem(`${who}.crt`),
  key: pem(`${who}.key`),
});
const ioOptions = (tls) => ({
  host, port: tlsPort, db: DB, tls, lazyConnect: true, maxRetriesPerRequest: 1,
  retryStrategy: () => null,
});
const nrClient = (tls) =>
  createClient({ socket: { host, port: tlsPort, tls: true, ...tls, reconnectStrategy: false }, database: DB });

test('ioredis over TLS: SET/GET, a pipeline of 1000, the protocol negotiated', { skip }, async () => {
  const redis = new Redis(ioOptions(tlsOptions()));
  redis.on('error', () => {});
  await redis.connect();
  try {
    assert.equal(await redis.set('tls:io', 'secret'), 'OK');
    assert.equal(await redis.get('tls:io'), 'secret');
    const p = redis.pipeline();
    for (let i = 0; i < 1000; i++) p.set(`tls:io:${i}`, 'x'.repeat(i));
    for (let i = 0; i < 1000; i++) p.strlen(`tls:io:${i}`);
    const replies = await p.exec();
    assert.equal(replies.length, 2000);
    for (let i = 0; i < 1000; i++) {
      assert.deepEqual(replies[i], [null, 'OK']);
      assert.deepEqual(replies[1000 + i], [null, i]);
    }
    // The connection really is TLS: Node reports the negotiated protocol.
    assert.match(redis.stream.getProtocol(), /^TLSv1\.[23]$/);
  } finally {
    await redis.quit();
  }
});

test('node-redis over TLS: SET/GET, a pipeline of 1000', { skip }, async () => {
  const client = nrClient(tlsOptions());
  client.on('error', () => {});
  await client.connect();
  try {
    assert.equal(await client.set('tls:nr', 'secret'), 'OK');
    assert.equal(await client.get('tls:nr'), 'secret');
    const multi = client.multi();
    for (let i = 0; i < 1000; i++) multi.incrBy('tls:nr:n', i);
    const replies = await multi.execAsPipeline();
    assert.equal(replies.length, 1000);
    assert.equal(replies[999], (999 * 1000) / 2);
  } finally {
    await client.quit();
  }
});

test('pub/sub over TLS: node-redis publishes, ioredis and node-redis receive', { skip }, async () => {
  const pub = nrClient(tlsOptions());
  pub.on('error', () => {});
  await pub.connect();
  const nrSub = pub.duplicate();
  nrSub.on('error', () => {});
  await nrSub.connect();
  const ioSub = new Redis(ioOptions(tlsOptions()));
  ioSub.on('error', () => {});
  await ioSub.connect();
  try {
    const nrGot = [];
    const ioGot = [];
    let delivered;
    const allDelivered = new Promise((resolve) => { delivered = resolve; });
    const check = () => { if (nrGot.length === 3 && ioGot.length === 3) delivered(); };
    await nrSub.subscribe('tls:chan', (message) => { nrGot.push(message); check(); });
    ioSub.on('pmessage', (pattern, channel, message) => { ioGot.push(`${channel}=${message}`); check(); });
    await ioSub.psubscribe('tls:*');
    for (const m of ['a', 'b', 'c']) assert.equal(await pub.publish('tls:chan', m), 2);
    await allDelivered;
    assert.deepEqual(nrGot, ['a', 'b', 'c']);
    assert.deepEqual(ioGot, ['tls:chan=a', 'tls:chan=b', 'tls:chan=c']);
  } finally {
    await nrSub.quit();
    await ioSub.quit();
    await pub.quit();
  }
});

test('a client that trusts another CA refuses the server', { skip }, async () => {
  const untrusted = /self[- ]signed|unable to verify/i;
  // ioredis rejects connect() with "Connection is closed" and reports why through 'error'.
  const errors = [];
  const redis = new Redis(ioOptions(tlsOptions('otherca')));
  redis.on('error', (e) => errors.push(e.message));
  await assert.rejects(redis.connect());
  redis.disconnect();
  assert.ok(errors.some((m) => untrusted.test(m)), `ioredis errors: ${errors}`);
  const client = nrClient(tlsOptions('otherca'));
  client.on('error', () => {});
  await assert.rejects(client.connect(), untrusted);
});

test('the server refuses a client certificate from another CA', { skip }, async () => {
  const redis = new Redis(ioOptions(tlsOptions('ca', 'stranger')));
  redis.on('error', () => {});
  // The handshake ends on the client's side before the server's verdict arrives (TLSv1.3), so the
  // refusal shows as a connection closed before any reply: connect() or the first command fails.
  await assert.rejects(async () => {
    await redis.connect();
    await redis.ping();
  });
  redis.disconnect();
  // The server serves on.
  const ok = new Redis(ioOptions(tlsOptions()));
  ok.on('error', () => {});
  await ok.connect();
  assert.equal(await ok.ping(), 'PONG');
  await ok.quit();
});
