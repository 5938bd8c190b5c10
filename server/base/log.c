/*
 * log.c - timestamped log lines (see log.h). The level filter reads the
 * level through a pointer on every call, so CONFIG SET loglevel acts at once
 * without the log knowing the server.
 */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Redis's role letter after the pid: M primary, S replica, C a forked child. */
static char role = 'M';

void log_set_role(char r)
{
    role = r;
}

static FILE *log_file;
static const enum log_level *level_source;

void log_set_level_source(const enum log_level *level)
{
    level_source = level;
}

int log_open(const char *path)
{
    FILE *f = NULL;
    if (path && path[0]) {
        f = fopen(path, "a");
        if (!f)
            return -1;
    }
    if (log_file && log_file != stdout)
        fclose(log_file);
    log_file = f;
    return 0;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    static const char marks[] = ".-*#";
    char when[64];
    struct timeval tv;
    struct tm tm;
    FILE *out = log_file ? log_file : stdout;
    va_list ap;

    if (level_source && level < *level_source)
        return;
    gettimeofday(&tv, NULL);
    localtime_r(&tv.tv_sec, &tm);
    size_t n = strftime(when, sizeof(when), "%d %b %Y %H:%M:%S", &tm);
    snprintf(when + n, sizeof(when) - n, ".%03d", (int)(tv.tv_usec / 1000));
    fprintf(out, "%d:%c %s %c ", (int)getpid(), role, when, marks[level]);
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    fflush(out);
}
