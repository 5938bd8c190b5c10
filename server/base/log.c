/*
 * log.c - timestamped log lines (see log.h). The level filter reads the
 * level through a pointer on every call, so CONFIG SET loglevel acts at once
 * without the log knowing the server.
 */
/* syslog.h's priorities share names with log.h's levels: its values are
 * kept here first, then its names give way to log.h's. */
#include <syslog.h>
static const int syslog_priority[] = {LOG_DEBUG, LOG_INFO, LOG_NOTICE, LOG_WARNING};
static const int syslog_facility[] = {LOG_USER,   LOG_LOCAL0, LOG_LOCAL1, LOG_LOCAL2, LOG_LOCAL3,
                                      LOG_LOCAL4, LOG_LOCAL5, LOG_LOCAL6, LOG_LOCAL7};
#undef LOG_DEBUG
#undef LOG_NOTICE
#undef LOG_WARNING

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
static int to_syslog;

void log_use_syslog(const char *ident, int facility)
{
    if (facility < 0 || facility >= (int)(sizeof(syslog_facility) / sizeof(syslog_facility[0])))
        facility = 1;
    openlog(ident, LOG_PID | LOG_NDELAY | LOG_NOWAIT, syslog_facility[facility]);
    to_syslog = 1;
}

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
    if (to_syslog) {
        /* The message alone, as Redis sends it: syslog adds time and pid. */
        char msg[1024];
        va_list copy;
        va_copy(copy, ap);
        vsnprintf(msg, sizeof(msg), fmt, copy);
        va_end(copy);
        syslog(syslog_priority[level], "%s", msg);
    }
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    fflush(out);
}
