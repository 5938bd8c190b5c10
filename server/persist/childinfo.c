/*
 * childinfo.c - forking a persistence child and its report (childinfo.h).
 *
 * The child's report is one size_t written into the pipe as it ends: far
 * under PIPE_BUF, so the write never blocks nor splits, and the parent reads
 * it after waitpid, when it is already there or never will be. fork()'s
 * time is measured around the call, as Redis's latest_fork_usec. The
 * copy-on-write of a running child is read from /proc on a libuv worker
 * (child_info_current_cow), never on the loop.
 */
#include "childinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <uv.h>

#include "clock.h"
#include "mem.h"

static long long latest_fork_usec;
static unsigned long long total_forks;

static void (*on_start)(void);

void child_info_on_start(void (*fn)(void))
{
    on_start = fn;
}

void child_info_child_started(void)
{
    if (on_start)
        on_start();
}

pid_t child_info_fork(struct child_info *ci)
{
    int fds[2] = {-1, -1};
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
        fds[0] = fds[1] = -1;
    int64_t start = ustime();
    pid_t pid = fork();
    if (pid == 0) {
        if (fds[0] >= 0)
            close(fds[0]);
        ci->fd = fds[1];
        child_info_child_started();
        return 0;
    }
    if (fds[1] >= 0)
        close(fds[1]);
    if (pid < 0) {
        int err = errno;
        if (fds[0] >= 0)
            close(fds[0]);
        ci->fd = -1;
        errno = err;
        return pid;
    }
    child_info_forked(start);
    ci->fd = fds[0];
    ci->pid = pid;
    ci->cow_bytes = 0;
    ci->cow_ms = 0;
    ci->start_ms = start / 1000;
    return pid;
}

void child_info_forked(int64_t start_us)
{
    latest_fork_usec = ustime() - start_us;
    total_forks++;
}

void child_info_send(struct child_info *ci)
{
    size_t cow = mem_private_dirty(0);
    if (ci->fd < 0)
        return;
    /* Nothing to do when it fails: the parent then reports 0. */
    if (write(ci->fd, &cow, sizeof(cow)) != (ssize_t)sizeof(cow))
        cow = 0;
    close(ci->fd);
    ci->fd = -1;
}

size_t child_info_receive(struct child_info *ci)
{
    size_t cow = 0;
    if (ci->fd >= 0) {
        if (read(ci->fd, &cow, sizeof(cow)) != (ssize_t)sizeof(cow))
            cow = 0;
        close(ci->fd);
    }
    ci->fd = -1;
    ci->pid = 0;
    return cow;
}

/* A read of a child's copy-on-write on a worker thread, which only reads
 * /proc: ci is touched on the loop thread only, in cow_read_done. */
struct cow_read {
    uv_work_t req;
    struct child_info *ci;
    pid_t pid;
    size_t bytes;
};

static void cow_read_work(uv_work_t *req)
{
    struct cow_read *r = req->data;
    r->bytes = mem_private_dirty(r->pid);
}

static void cow_read_done(uv_work_t *req, int status)
{
    struct cow_read *r = req->data;
    r->ci->cow_reading = 0;
    /* The same child still runs: else the figure is of one that is gone. */
    if (status == 0 && r->ci->pid == r->pid) {
        r->ci->cow_bytes = r->bytes;
        r->ci->cow_ms = mstime();
    }
    xfree(r);
}

#define COW_READ_EVERY_MS 1000

size_t child_info_current_cow(struct child_info *ci, long long *age_s)
{
    if (age_s)
        *age_s = 0;
    if (!ci->pid)
        return 0;
    int64_t now = mstime();
    if (!ci->cow_reading && now - ci->cow_ms >= COW_READ_EVERY_MS) {
        struct cow_read *r = xmalloc(sizeof(*r));
        *r = (struct cow_read){.ci = ci, .pid = ci->pid};
        r->req.data = r;
        /* The server's loop is libuv's default one (lifecycle.c). */
        if (uv_queue_work(uv_default_loop(), &r->req, cow_read_work, cow_read_done) == 0)
            ci->cow_reading = 1;
        else
            xfree(r);
    }
    if (age_s && ci->cow_ms)
        *age_s = (now - ci->cow_ms) / 1000;
    return ci->cow_bytes;
}

long long child_info_latest_fork_usec(void)
{
    return latest_fork_usec;
}

unsigned long long child_info_total_forks(void)
{
    return total_forks;
}

void child_info_reset_stats(void)
{
    latest_fork_usec = 0;
    total_forks = 0;
}
