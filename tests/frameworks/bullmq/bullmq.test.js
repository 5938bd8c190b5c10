// BullMQ (pinned by package-lock.json here) running real jobs against one server: a Queue and a
// Worker with results, a delayed job, a job scheduler repeating a job, a failing job retried with
// a fixed backoff until it completes, a job that exhausts its attempts, and the QueueEvents stream
// (XREAD on the queue's events stream) reporting each of them. Every test has a queue of its own,
// so a failure in one leaves no jobs behind for the next. Run through run.sh, which exports
// RBKV_PORT; the server is whichever binary run.sh was given (redis-server is the control).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { Queue, Worker, QueueEvents } = require('bullmq');

const port = Number(process.env.RBKV_PORT);
if (!Number.isInteger(port) || port <= 0) {
  throw new Error('RBKV_PORT is not set: run this test through tests/frameworks/bullmq/run.sh SERVER_BIN');
}
// A Worker's blocking connection must retry forever (BullMQ refuses maxRetriesPerRequest != null);
// retryStrategy null makes a server that went away fail the test instead of hanging it.
const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null, retryStrategy: () => null };
const TEST_TIMEOUT_MS = 20000;

// A queue, its events and (when given a processor) a worker, named after the test; close() ends
// all three, so each test owns exactly the connections it opened.
async function openQueue(name, processor) {
  const queueName = `${name}-${process.pid}`;
  const queue = new Queue(queueName, { connection });
  const events = new QueueEvents(queueName, { connection });
  await events.waitUntilReady();
  await queue.waitUntilReady();
  const worker = processor
    ? new Worker(queueName, processor, { connection, concurrency: 2 })
    : null;
  if (worker) await worker.waitUntilReady();
  const close = async () => {
    if (worker) await worker.close();
    await events.close();
    await queue.obliterate({ force: true });
    await queue.close();
  };
  return { queue, events, worker, close };
}

// Runs body(q) on a queue opened as openQueue does, and closes it whatever body did.
async function withQueue(name, processor, body) {
  const q = await openQueue(name, processor);
  try {
    await body(q);
  } finally {
    await q.close();
  }
}

// Resolves with the first `n` events `event` emits (each as its argument list); rejects after ms.
function collectEvents(emitter, event, n, ms) {
  return new Promise((resolve, reject) => {
    const seen = [];
    const timer = setTimeout(() => {
      emitter.off(event, onEvent);
      reject(new Error(`only ${seen.length} of ${n} '${event}' events within ${ms} ms`));
    }, ms);
    function onEvent(...args) {
      seen.push(args);
      if (seen.length === n) {
        clearTimeout(timer);
        emitter.off(event, onEvent);
        resolve(seen);
      }
    }
    emitter.on(event, onEvent);
  });
}

test('a worker processes jobs and their results are stored', { timeout: TEST_TIMEOUT_MS }, async () => {
  await withQueue('results', async (job) => job.data.a + job.data.b, async (q) => {
    const jobs = await q.queue.addBulk(
      Array.from({ length: 10 }, (_, i) => ({ name: 'sum', data: { a: i, b: 100 } })));
    const results = await Promise.all(jobs.map((job) => job.waitUntilFinished(q.events, 10000)));
    assert.deepEqual(results, Array.from({ length: 10 }, (_, i) => i + 100));
    const counts = await q.queue.getJobCounts('completed', 'failed', 'waiting', 'active', 'delayed');
    assert.deepEqual(counts, { completed: 10, failed: 0, waiting: 0, active: 0, delayed: 0 });
    const stored = await q.queue.getJob(jobs[3].id);
    assert.equal(stored.returnvalue, 103);
    assert.equal(await stored.getState(), 'completed');
  });
});

test('a delayed job waits in the delayed set, then runs', { timeout: TEST_TIMEOUT_MS }, async () => {
  await withQueue('delayed', async () => Date.now(), async (q) => {
    const delay = 700;
    const job = await q.queue.add('later', {}, { delay });
    assert.equal(await job.getState(), 'delayed');
    assert.equal(await q.queue.getDelayedCount(), 1);
    const ranAt = await job.waitUntilFinished(q.events, 10000);
    assert.ok(ranAt - job.timestamp >= delay, `ran ${ranAt - job.timestamp} ms after add, delay ${delay}`);
    assert.equal(await q.queue.getDelayedCount(), 0);
  });
});

test('a job scheduler repeats a job at its interval, up to its limit', { timeout: TEST_TIMEOUT_MS }, async () => {
  const ranAt = [];
  await withQueue('repeat', async (job) => {
    ranAt.push(Date.now());
    return job.data.tick;
  }, async (q) => {
    const every = 300;
    const done = collectEvents(q.worker, 'completed', 3, 10000);
    await q.queue.upsertJobScheduler('tick', { every, limit: 3 }, { name: 'tick', data: { tick: 'tock' } });
    assert.equal((await q.queue.getJobSchedulers()).length, 1);
    const completed = await done;
    assert.deepEqual(completed.map(([job]) => job.returnvalue), ['tock', 'tock', 'tock']);
    // Scheduled runs are `every` apart; the scheduler's timer may fire a little early (BullMQ
    // aligns to multiples of `every`), so only most of the interval is required.
    for (let i = 1; i < ranAt.length; i++) {
      assert.ok(ranAt[i] - ranAt[i - 1] >= every * 0.5, `runs ${ranAt[i] - ranAt[i - 1]} ms apart`);
    }
    // The limit ends the runs: no fourth one; the scheduler itself stays until removed.
    await new Promise((resolve) => setTimeout(resolve, 3 * every));
    assert.equal(ranAt.length, 3);
    assert.equal(await q.queue.removeJobScheduler('tick'), true);
    assert.equal((await q.queue.getJobSchedulers()).length, 0);
  });
});

test('a failing job is retried with backoff and then completes', { timeout: TEST_TIMEOUT_MS }, async () => {
  const attempts = [];
  await withQueue('retry', async (job) => {
    attempts.push(Date.now());
    if (attempts.length < 3) throw new Error(`attempt ${attempts.length} fails`);
    return 'third time';
  }, async (q) => {
    const backoff = 300;
    const finalFailures = [];
    q.events.on('failed', (args) => finalFailures.push(args));
    const job = await q.queue.add('flaky', {}, { attempts: 5, backoff: { type: 'fixed', delay: backoff } });
    assert.equal(await job.waitUntilFinished(q.events, 10000), 'third time');
    assert.equal(attempts.length, 3);
    for (let i = 1; i < attempts.length; i++) {
      assert.ok(attempts[i] - attempts[i - 1] >= backoff, `retry after ${attempts[i] - attempts[i - 1]} ms`);
    }
    const stored = await q.queue.getJob(job.id);
    // BullMQ counts the attempt that completed too.
    assert.equal(stored.attemptsMade, 3);
    assert.equal(stored.attemptsStarted, 3);
    assert.deepEqual(stored.stacktrace.map((s) => s.split('\n')[0]),
                     ['Error: attempt 1 fails', 'Error: attempt 2 fails']);
    // A retried failure is no final failure: QueueEvents reports none.
    assert.deepEqual(finalFailures, []);
  });
});

test('QueueEvents reports a job\'s life: added, active, progress, completed; and a final failure',
     { timeout: TEST_TIMEOUT_MS }, async () => {
  await withQueue('events', async (job) => {
    if (job.name === 'doomed') throw new Error('no luck');
    await job.updateProgress(50);
    return 'ok';
  }, async (q) => {
    const seen = [];
    for (const event of ['added', 'waiting', 'active', 'progress', 'completed', 'failed', 'retries-exhausted']) {
      q.events.on(event, (args) => seen.push({ event, ...args }));
    }
    const good = await q.queue.add('good', {});
    await good.waitUntilFinished(q.events, 10000);
    const doomed = await q.queue.add('doomed', {}, { attempts: 2 });
    await assert.rejects(doomed.waitUntilFinished(q.events, 10000), /no luck/);
    // Events arrive on a stream read by XREAD BLOCK; give the last ones time to be read.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const of = (id) => seen.filter((e) => e.jobId === id).map((e) => e.event);
    const goodEvents = of(good.id);
    for (const e of ['added', 'waiting', 'active', 'progress', 'completed']) {
      assert.ok(goodEvents.includes(e), `no '${e}' for the good job: ${goodEvents}`);
    }
    assert.ok(goodEvents.indexOf('active') < goodEvents.indexOf('progress'), `${goodEvents}`);
    assert.ok(goodEvents.indexOf('progress') < goodEvents.indexOf('completed'), `${goodEvents}`);
    assert.equal(seen.find((e) => e.jobId === good.id && e.event === 'progress').data, 50);
    assert.equal(seen.find((e) => e.jobId === good.id && e.event === 'completed').returnvalue, 'ok');
    const failed = seen.filter((e) => e.jobId === doomed.id && e.event === 'failed');
    assert.equal(failed.length, 1, JSON.stringify(seen));
    assert.equal(failed[0].failedReason, 'no luck');
    assert.equal(await q.queue.getFailedCount(), 1);
    assert.equal((await q.queue.getJob(doomed.id)).attemptsMade, 2);
  });
});
