"""The Celery app and tasks celery_test.py runs: the broker and the result backend are both the
server on 127.0.0.1:$RBKV_PORT (databases 0 and 1), and the worker celery_test.py starts imports
this module (celery -A celery_tasks worker)."""
import os
import time

from celery import Celery

PORT = int(os.environ["RBKV_PORT"])
app = Celery("rbkv_frameworks",
             broker=f"redis://127.0.0.1:{PORT}/0",
             backend=f"redis://127.0.0.1:{PORT}/1")
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    # A server that refuses the broker's commands must fail the test, not be retried forever.
    broker_connection_retry_on_startup=False,
    broker_connection_max_retries=0,
    result_expires=600,
)


@app.task
def add(x, y):
    return x + y


@app.task
def total(numbers):
    return sum(numbers)


@app.task
def ran_at():
    """When the worker ran it, for countdown and eta checks."""
    return time.time()


@app.task(bind=True, max_retries=3)
def flaky(self, fail_times):
    """Fails (and asks to be retried a second later) until it has been retried fail_times times."""
    if self.request.retries < fail_times:
        raise self.retry(exc=RuntimeError(f"attempt {self.request.retries + 1} fails"), countdown=1)
    return {"retries": self.request.retries, "ran_at": time.time()}
