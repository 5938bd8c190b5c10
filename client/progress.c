/*
 * progress.c - the progress line of load and of range, prefix and dump on
 * stderr. Owns only the timing of the redraws.
 *
 * On a terminal the line is redrawn in place (a carriage return, no
 * newline until the final draw); elsewhere, when asked for with
 * --progress, each draw is a line of its own, so a log keeps readable
 * lines without carriage returns. Redraws come at most every
 * PROGRESS_INTERVAL_S, the final one always.
 */
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define PROGRESS_INTERVAL_S 0.2

double cli_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_progress_init(struct cli_progress *p, enum cli_progress_mode mode)
{
    p->tty = isatty(STDERR_FILENO);
    p->on = mode == CLI_PROGRESS_ALWAYS || (mode == CLI_PROGRESS_TTY && p->tty);
    p->start = p->last_draw = cli_now_s();
}

double cli_progress_rate(const struct cli_progress *p, unsigned long long n)
{
    double t = cli_now_s();
    return t > p->start ? (double)n / (t - p->start) : 0;
}

void cli_progress_draw(struct cli_progress *p, int final, const char *fmt, ...)
{
    double t = cli_now_s();
    va_list ap;

    if (!p->on || (!final && t - p->last_draw < PROGRESS_INTERVAL_S))
        return;
    p->last_draw = t;
    if (p->tty)
        fputc('\r', stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    /* The spaces cover the end of a longer line drawn before. */
    fputs(final || !p->tty ? "\n" : "  ", stderr);
}
