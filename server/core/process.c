/*
 * process.c - the process's face to the system (process.h): pid file,
 * supervisor notifications, syslog, OOM score and title, with Redis 7.0's
 * settings and log texts.
 *
 * systemd's readiness protocol is one datagram ("READY=1\nSTATUS=...") to
 * the AF_UNIX socket named by $NOTIFY_SOCKET ('@' starts an abstract name),
 * written here without libsystemd. The OOM score goes to
 * /proc/self/oom_score_adj: oom-score-adj-values' first value on a primary,
 * its second on a replica, added to the score the process started with when
 * "relative" (yes); "no" puts the starting score back if it was changed.
 * A forked child (BGSAVE, BGREWRITEAOF, a full sync's) takes the third
 * value, as Redis's redisFork does, through childinfo.h's start hook.
 *
 * The title (set-proc-title, proc-title-template with Redis's variables)
 * overwrites argv's strings in place, the environment having been copied
 * out of the area that follows them, so ps and /proc/PID/cmdline show it.
 */
#include "process.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "childinfo.h"
#include "log.h"
#include "mem.h"
#include "server.h"

enum supervisor { SUPERVISOR_NONE, SUPERVISOR_SYSTEMD, SUPERVISOR_UPSTART };

static enum supervisor supervisor;
static int pidfile_written;
static int oom_base;          /* the score at start */
static int oom_base_read;     /* oom_base holds it */
static int oom_written;       /* the score in force (the base until we write) */
static int oom_changed;       /* a score of ours may be in force */

static char *title_area;  /* argv[0]'s memory and the strings after it */
static size_t title_cap;  /* its bytes, the last NUL included */
static char *exec_name;   /* argv[0], copied: {title} */
static char *title_shown; /* the title last written, NULL none */
static char **env_copy;   /* the environment moved out of the title's area */

void process_keep_argv(int argc, char **argv)
{
    if (argc < 1 || !argv[0])
        return;
    char *end = argv[0] + strlen(argv[0]) + 1;
    for (int i = 1; i < argc; i++)
        if (argv[i] == end)
            end += strlen(argv[i]) + 1;
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = xmalloc(sizeof(*env) * (n + 1));
    for (size_t i = 0; i < n; i++) {
        if (environ[i] == end)
            end += strlen(environ[i]) + 1;
        env[i] = xstrdup(environ[i]);
    }
    env[n] = NULL;
    environ = env_copy = env;
    exec_name = xstrdup(argv[0]);
    title_area = argv[0];
    title_cap = (size_t)(end - argv[0]);
}

#define TITLE_MAX 1024

static void title_add(char *out, size_t *len, const char *s, size_t n)
{
    if (n > TITLE_MAX - 1 - *len)
        n = TITLE_MAX - 1 - *len;
    memcpy(out + *len, s, n);
    *len += n;
    out[*len] = '\0';
}

/* Redis's expansion of proc-title-template into out[TITLE_MAX]: blanks
 * that an empty variable leaves at either end are trimmed, as Redis does. */
static void expand_title(char *out)
{
    const struct config *cfg = &server.cfg;
    const char *t = cfg->proc_title_template ? cfg->proc_title_template : "";
    char addr[300], num[16];
    size_t len = 0;
    if (cfg->port || cfg->tls_port)
        snprintf(addr, sizeof(addr), "%s:%d", cfg->bind_count ? cfg->bind[0] : "*",
                 cfg->port ? cfg->port : cfg->tls_port);
    else
        snprintf(addr, sizeof(addr), "unixsocket:%s", cfg->unixsocket ? cfg->unixsocket : "");
    out[0] = '\0';
    while (*t) {
        const char *v = NULL, *close = *t == '{' ? strchr(t, '}') : NULL;
        size_t n = close ? (size_t)(close - t + 1) : 1;
        if (!close)
            v = NULL;
        else if (!strncmp(t, "{title}", n))
            v = exec_name ? exec_name : "rbkv-server";
        else if (!strncmp(t, "{listen-addr}", n))
            v = addr;
        else if (!strncmp(t, "{server-mode}", n))
            v = "";
        else if (!strncmp(t, "{port}", n) || !strncmp(t, "{tls-port}", n)) {
            snprintf(num, sizeof(num), "%d", t[1] == 'p' ? cfg->port : cfg->tls_port);
            v = num;
        } else if (!strncmp(t, "{unixsocket}", n))
            v = cfg->unixsocket ? cfg->unixsocket : "";
        else if (!strncmp(t, "{config-file}", n))
            v = server.config_file ? server.config_file : "";
        if (v) {
            title_add(out, &len, v, strlen(v));
            t += n;
        } else {
            title_add(out, &len, t, 1);
            t++;
        }
    }
    while (len && out[len - 1] == ' ')
        out[--len] = '\0';
    size_t lead = strspn(out, " ");
    memmove(out, out + lead, len - lead + 1);
}

static void update_title(void)
{
    char title[TITLE_MAX];
    if (!title_area || !server.cfg.set_proc_title)
        return;
    expand_title(title);
    if (title_shown && !strcmp(title, title_shown))
        return;
    /* The whole area: the title, then NULs up to its end. */
    size_t n = strlen(title);
    memset(title_area, 0, title_cap);
    memcpy(title_area, title, n < title_cap ? n : title_cap - 1);
    xfree(title_shown);
    title_shown = xstrdup(title);
}

/* One datagram to systemd; returns 0 or -1 (logged). */
static int sd_notify_send(const char *msg)
{
    const char *path = getenv("NOTIFY_SOCKET");
    struct sockaddr_un sa;
    size_t len;
    if (!path || !path[0] || (len = strlen(path)) >= sizeof(sa.sun_path)) {
        log_warning("systemd supervision requested or auto-detected, but NOTIFY_SOCKET not found!");
        return -1;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, len);
    if (sa.sun_path[0] == '@')
        sa.sun_path[0] = '\0';
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        log_warning("Can't connect to systemd socket %s: %s", path, strerror(errno));
        return -1;
    }
    ssize_t n = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
                       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
    int e = errno;
    close(fd);
    if (n < 0) {
        log_warning("Can't send notification to systemd: %s", strerror(e));
        return -1;
    }
    return 0;
}

static enum supervisor detect_supervisor(void)
{
    switch (server.cfg.supervised) {
    case SUPERVISED_SYSTEMD:
        return SUPERVISOR_SYSTEMD;
    case SUPERVISED_UPSTART:
        return SUPERVISOR_UPSTART;
    case SUPERVISED_AUTO:
        if (getenv("NOTIFY_SOCKET"))
            return SUPERVISOR_SYSTEMD;
        if (getenv("UPSTART_JOB"))
            return SUPERVISOR_UPSTART;
        return SUPERVISOR_NONE;
    default:
        return SUPERVISOR_NONE;
    }
}

static void write_pidfile(void)
{
    const char *path = server.cfg.pidfile;
    if (!path)
        return;
    FILE *f = fopen(path, "w");
    if (!f) {
        log_warning("Failed to write PID file: %s", strerror(errno));
        return;
    }
    fprintf(f, "%d\n", (int)getpid());
    if (fclose(f) != 0) {
        log_warning("Failed to write PID file: %s", strerror(errno));
        return;
    }
    pidfile_written = 1;
}

/* Reads /proc/self/oom_score_adj into *v; returns 0 or -1. */
static int read_oom(int *v)
{
    char buf[32], *end;
    FILE *f = fopen("/proc/self/oom_score_adj", "r");
    if (!f)
        return -1;
    char *line = fgets(buf, sizeof(buf), f);
    fclose(f);
    if (!line)
        return -1;
    long n = strtol(buf, &end, 10);
    if (end == buf || n < -1000 || n > 1000)
        return -1;
    *v = (int)n;
    return 0;
}

static void write_oom(int v)
{
    FILE *f = fopen("/proc/self/oom_score_adj", "w");
    int ok = f && fprintf(f, "%d\n", v) > 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok) {
        log_warning("Unable to write oom_score_adj: %s", strerror(errno));
        return;
    }
    oom_written = v;
}

/* Redis's setOOMScoreAdj: cls 0 a primary, 1 a replica, 2 a forked child. */
static void update_oom_as(int cls)
{
    if (!oom_base_read) {
        if (read_oom(&oom_base) < 0)
            return;
        oom_base_read = 1;
        oom_written = oom_base;
    }
    if (server.cfg.oom_score_adj == OOM_SCORE_NO) {
        if (oom_changed && oom_written != oom_base)
            write_oom(oom_base);
        oom_changed = 0;
        return;
    }
    int v = server.cfg.oom_score_adj_values[cls];
    if (server.cfg.oom_score_adj == OOM_SCORE_RELATIVE)
        v += oom_base;
    v = v < -1000 ? -1000 : v > 1000 ? 1000 : v;
    if (v != oom_written)
        write_oom(v);
    oom_changed = 1;
}

static void update_oom(void)
{
    update_oom_as(server.cfg.replicaof_host ? 1 : 0);
}

/* In a forked child, first thing (childinfo.h). */
static void oom_as_child(void)
{
    update_oom_as(2);
}

void process_start(void)
{
    child_info_on_start(oom_as_child);
    if (server.cfg.syslog_enabled)
        log_use_syslog(server.cfg.syslog_ident, server.cfg.syslog_facility);
    supervisor = detect_supervisor();
    if (supervisor == SUPERVISOR_SYSTEMD)
        log_notice("supervised by systemd. Please make sure you set appropriate values for "
                   "TimeoutStartSec and TimeoutStopSec in your service unit.");
    else if (supervisor == SUPERVISOR_UPSTART)
        log_notice("supervised by upstart, will stop to signal readiness.");
    write_pidfile();
    update_oom();
    update_title();
}

/* Redis 7.0 tells systemd it is ready as soon as it serves, a replica too
 * (read-only until its first sync, process_status then says so). */
void process_ready(void)
{
    if (supervisor == SUPERVISOR_SYSTEMD) {
        const char *msg = server.cfg.replicaof_host
                              ? "READY=1\nSTATUS=Ready to accept connections in read-only mode. "
                                "Waiting for MASTER <-> REPLICA sync\n"
                              : "READY=1\nSTATUS=Ready to accept connections\n";
        if (sd_notify_send(msg) == 0)
            log_notice("Ready to accept connections");
    } else if (supervisor == SUPERVISOR_UPSTART) {
        raise(SIGSTOP);
        unsetenv("UPSTART_JOB");
    }
}

void process_status(const char *text)
{
    if (supervisor != SUPERVISOR_SYSTEMD)
        return;
    char msg[256];
    snprintf(msg, sizeof(msg), "STATUS=%s\n", text);
    sd_notify_send(msg);
}

void process_update(void)
{
    update_oom();
    update_title();
}

void process_release(void)
{
    /* clearenv frees libc's own array when setenv replaced ours, and leaves
     * environ NULL, so no one reads the strings freed below. */
    clearenv();
    for (char **e = env_copy; e && *e; e++)
        xfree(*e);
    xfree(env_copy);
    env_copy = NULL;
    xfree(exec_name);
    exec_name = NULL;
    xfree(title_shown);
    title_shown = NULL;
}

void process_stopping(void)
{
    if (supervisor == SUPERVISOR_SYSTEMD)
        sd_notify_send("STOPPING=1\n");
    if (pidfile_written && server.cfg.pidfile) {
        unlink(server.cfg.pidfile);
        pidfile_written = 0;
    }
}
