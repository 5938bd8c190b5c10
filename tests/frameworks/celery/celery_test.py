"""Celery (Debian's python3-celery 5.2.6 on python3-redis and kombu) running real tasks against one
server, which is both the broker and the result backend: a worker process started here (threads
pool) runs tasks whose results come back through the backend, a task delayed with countdown and
one with eta, a task that raises Retry and then succeeds, a group and a chord (whose callback the
Redis backend triggers from a counter and a list of results it keeps on the server).
Run through run.sh with /usr/bin/python3 (Debian's packages), which exports RBKV_PORT."""
import datetime
import os
import subprocess
import sys
import time
import unittest

from celery import chord, group

from celery_tasks import add, app, flaky, ran_at, total

HERE = os.path.dirname(os.path.abspath(__file__))
# Far longer than any task needs on an idle machine; a missing command fails each check within it.
WAIT_SECONDS = 20
worker = None


def setUpModule():
    global worker
    # run.sh gives each run a new, empty server: no queue or result is left from an earlier run.
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "celery_tasks", "worker", "--pool=threads",
         "--concurrency=4", "--loglevel=WARNING", "--without-gossip", "--without-mingle",
         "--without-heartbeat"],
        cwd=HERE)
    # The worker is up once it answers a broadcast ping (kombu's fanout: PUBLISH/SUBSCRIBE).
    # unittest skips tearDownModule when setUpModule fails, so a failure here stops the worker.
    try:
        deadline = time.time() + WAIT_SECONDS
        while not app.control.ping(timeout=0.5):
            if worker.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"the Celery worker did not start (exit status {worker.poll()})")
    except BaseException:
        tearDownModule()
        raise


def tearDownModule():
    worker.terminate()  # a warm shutdown: finishes the running tasks, then exits
    try:
        worker.wait(timeout=WAIT_SECONDS)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()


class CeleryTest(unittest.TestCase):
    def test_tasks_return_their_results_through_the_backend(self):
        results = [add.delay(i, 100) for i in range(10)]
        self.assertEqual([r.get(timeout=WAIT_SECONDS) for r in results], [i + 100 for i in range(10)])
        self.assertTrue(all(r.successful() for r in results))
        self.assertEqual(results[0].state, "SUCCESS")

    def test_countdown_delays_a_task(self):
        sent = time.time()
        result = ran_at.apply_async(countdown=2)
        self.assertGreaterEqual(result.get(timeout=WAIT_SECONDS) - sent, 2.0)

    def test_eta_delays_a_task(self):
        eta = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=2)
        result = ran_at.apply_async(eta=eta)
        self.assertGreaterEqual(result.get(timeout=WAIT_SECONDS), eta.timestamp())

    def test_a_task_retried_then_succeeds(self):
        sent = time.time()
        result = flaky.delay(2)
        outcome = result.get(timeout=WAIT_SECONDS)
        self.assertEqual(outcome["retries"], 2)
        # Each retry waits its countdown of 1 s.
        self.assertGreaterEqual(outcome["ran_at"] - sent, 2.0)

    def test_a_task_that_exhausts_its_retries_fails(self):
        result = flaky.delay(5)  # max_retries is 3
        with self.assertRaisesRegex(RuntimeError, "attempt 4 fails"):
            result.get(timeout=WAIT_SECONDS)
        self.assertEqual(result.state, "FAILURE")

    def test_group_and_chord(self):
        grouped = group(add.s(i, i) for i in range(5))()
        self.assertEqual(grouped.get(timeout=WAIT_SECONDS), [0, 2, 4, 6, 8])
        summed = chord(add.s(i, 1) for i in range(5))(total.s())
        self.assertEqual(summed.get(timeout=WAIT_SECONDS), 15)


if __name__ == "__main__":
    unittest.main(verbosity=2)
