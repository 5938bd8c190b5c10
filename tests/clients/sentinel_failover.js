// An application's view of a Sentinel failover: ioredis, connected through the sentinels with its
// default options (the primary is whatever they name; it reconnects and asks them again when the
// link drops), writes every INTERVAL ms until STOP_FILE appears, then checks what it wrote.
// tests/integration/test_sentinel.sh runs it across the kill -9 of the primary; it is not a
// *.test.js, so tests/clients/run.sh leaves it out.
//
// Each write n is one pipeline: SET ha:w:<n> n, SET ha:counter n, WAIT 1 100. A write is
//   acknowledged  when both SETs answered OK (the primary has it);
//   replicated    when WAIT also answered 1 or more (a replica has it too, in memory).
// Afterwards every replicated write must be on the primary then named by the sentinels (exit 1
// otherwise); acknowledged writes that are missing are reported, since an asynchronous replica
// may lawfully lose the last ones a killed primary acknowledged. Also reported: the errors, and the
// longest time between two acknowledged writes (how long writes failed or stalled).
//
// usage: node sentinel_failover.js --sentinels host:port[,host:port...] --name mymaster
//                                   --interval 20 --stop-file PATH
// Prints "writing" once its first write is acknowledged, then its report when it stops.
'use strict';

const fs = require('node:fs');
const Redis = require('ioredis');

function parseArgs(argv) {
  const opts = { interval: 20 };
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1];
    switch (argv[i]) {
      case '--sentinels':
        opts.sentinels = value.split(',').map((hp) => {
          const at = hp.lastIndexOf(':');
          return { host: hp.slice(0, at), port: Number(hp.slice(at + 1)) };
        });
        break;
      case '--name': opts.name = value; break;
      case '--interval': opts.interval = Number(value); break;
      case '--stop-file': opts.stopFile = value; break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  if (!opts.sentinels || !opts.name || !opts.stopFile) {
    throw new Error('usage: --sentinels host:port,... --name NAME --interval MS --stop-file PATH');
  }
  return opts;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const redis = new Redis({ sentinels: opts.sentinels, name: opts.name });
  const errors = new Map(); // message -> count
  redis.on('error', () => {}); // connection errors show up as failed writes

  const acknowledged = [];
  const replicated = [];
  let attempted = 0;
  let lastAck = null;
  let longestGap = 0;
  let gapFrom = null; // the acknowledged write before the longest gap
  const started = Date.now();

  while (!fs.existsSync(opts.stopFile)) {
    const tick = Date.now();
    const n = ++attempted;
    try {
      const replies = await redis.pipeline()
        .set(`ha:w:${n}`, String(n))
        .set('ha:counter', String(n))
        .call('WAIT', '1', '100')
        .exec();
      const failed = replies.find(([err]) => err);
      if (failed) throw failed[0];
      const now = Date.now();
      if (lastAck !== null && now - lastAck > longestGap) {
        longestGap = now - lastAck;
        gapFrom = (now - started) / 1000 - longestGap / 1000;
      }
      if (lastAck === null) console.log('writing');
      lastAck = now;
      acknowledged.push(n);
      if (Number(replies[2][1]) >= 1) replicated.push(n);
    } catch (err) {
      const key = String(err && err.message).split('\n')[0];
      errors.set(key, (errors.get(key) || 0) + 1);
    }
    const wait = opts.interval - (Date.now() - tick);
    if (wait > 0) await sleep(wait);
  }

  // The check reads from the primary the sentinels name now (the client follows them).
  const present = new Set();
  for (let i = 0; i < acknowledged.length; i += 500) {
    const batch = acknowledged.slice(i, i + 500);
    const values = await redis.mget(batch.map((n) => `ha:w:${n}`));
    values.forEach((v, j) => { if (v === String(batch[j])) present.add(batch[j]); });
  }
  const lostReplicated = replicated.filter((n) => !present.has(n));
  const lostAcknowledged = acknowledged.filter((n) => !present.has(n));
  const counter = await redis.get('ha:counter');
  const last = acknowledged[acknowledged.length - 1];
  await redis.quit();

  console.log(`writes: ${attempted} attempted, ${acknowledged.length} acknowledged, ` +
              `${replicated.length} replicated (WAIT >= 1), ${attempted - acknowledged.length} failed`);
  for (const [msg, count] of errors) console.log(`error x${count}: ${msg}`);
  console.log(`longest time without an acknowledged write: ${(longestGap / 1000).toFixed(2)} s` +
              (gapFrom === null ? '' : ` (from ${gapFrom.toFixed(2)} s after the start)`));
  console.log(`acknowledged writes missing afterwards: ${lostAcknowledged.length}` +
              (lostAcknowledged.length ? ` (${lostAcknowledged.slice(0, 10).join(' ')})` : ''));
  console.log(`replicated writes missing afterwards: ${lostReplicated.length}`);
  console.log(`ha:counter = ${counter}, last acknowledged write ${last}`);
  let ok = lostReplicated.length === 0 && acknowledged.length > 0;
  // The last write was acknowledged after the failover, by the primary read from now.
  if (counter !== String(last)) ok = false;
  if (!ok) console.log('FAIL');
  process.exitCode = ok ? 0 : 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
