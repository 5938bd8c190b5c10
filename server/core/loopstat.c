/*
 * loopstat.c - the event loop's turns, timed (loopstat.h).
 *
 * libuv runs prepare handles just before it waits for I/O, once a turn, and
 * with UV_METRICS_IDLE_TIME it adds up the time spent waiting. So between two
 * prepare callbacks, the wall time minus the idle time that grew meanwhile is
 * the turn's work, whatever ran in it (timers, I/O callbacks, checks, close
 * callbacks); the thread's CPU clock between the two callbacks is the same
 * work's CPU (a wait costs no CPU). One vDSO clock read and one
 * clock_gettime(CLOCK_THREAD_CPUTIME_ID), a system call, per turn: a turn
 * serves every client that was ready, so under load that is well below one
 * per request.
 *
 * Invariant: last_* hold the previous prepare callback's readings; 0 before
 * the first, whose turn (the start-up before the loop ran) is not counted.
 */
#include "loopstat.h"

#include <string.h>
#include <time.h>
#include <uv.h>

#include "server.h"

static uv_prepare_t prepare;
static int started;
static struct loopstat st;
static uint64_t last_hr_ns, last_idle_ns, last_cpu_ns;

uint64_t loopstat_bound(int i)
{
    /* 0.25, 0.5, 1, 2, ... 512 ms: a turn of a quarter millisecond is a busy
     * loop's ordinary turn; from 2 ms it is a stall worth a look. */
    return (uint64_t)250 << i;
}

static void count(uint64_t *hist, uint64_t us)
{
    int i = 0;
    while (i < LOOPSTAT_BUCKETS && us > loopstat_bound(i))
        i++;
    hist[i]++;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void prepare_cb(uv_prepare_t *h)
{
    uint64_t now = uv_hrtime();
    uint64_t idle = uv_metrics_idle_time(h->loop);
    uint64_t cpu = thread_cpu_ns();
    if (last_hr_ns) {
        uint64_t wall = now - last_hr_ns, waited = idle - last_idle_ns;
        uint64_t busy_us = (wall > waited ? wall - waited : 0) / 1000;
        uint64_t cpu_us = (cpu > last_cpu_ns ? cpu - last_cpu_ns : 0) / 1000;
        st.turns++;
        st.busy_us_sum += busy_us;
        st.cpu_us_sum += cpu_us;
        if (busy_us > st.busy_us_max)
            st.busy_us_max = busy_us;
        if (cpu_us > st.cpu_us_max)
            st.cpu_us_max = cpu_us;
        count(st.busy_hist, busy_us);
        count(st.cpu_hist, cpu_us);
    }
    last_hr_ns = now;
    last_idle_ns = idle;
    last_cpu_ns = cpu;
}

void loopstat_start(void)
{
    /* Without it uv_metrics_idle_time stays 0 and every turn would count
     * its wait as work. */
    uv_loop_configure(server.loop, UV_METRICS_IDLE_TIME);
    uv_prepare_init(server.loop, &prepare);
    uv_prepare_start(&prepare, prepare_cb);
    uv_unref((uv_handle_t *)&prepare);
    started = 1;
}

void loopstat_close(void)
{
    if (started && !uv_is_closing((uv_handle_t *)&prepare))
        uv_close((uv_handle_t *)&prepare, NULL);
}

const struct loopstat *loopstat_get(void)
{
    return &st;
}

void loopstat_reset(void)
{
    memset(&st, 0, sizeof(st));
}
