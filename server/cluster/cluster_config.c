/*
 * cluster_config.c - nodes.conf (cluster_config.h): describing the nodes
 * as CLUSTER NODES and the file show them, loading the file at start,
 * rewriting it, and the lock that keeps two servers off one file.
 *
 * The lock is an flock held on the file's descriptor until exit. The file
 * is replaced by a rename, so each save locks the new file before it takes
 * the name, and only then lets the old lock go: at no moment is the file
 * under that name unlocked.
 *
 * Two files take turns (the "spare" below): each save rewrites the spare in
 * place, gives the file's current inode a second name, renames the spare
 * over the file, and keeps the old inode as the next spare. A save thus
 * neither creates nor frees an inode: on ext4 under a busy disk, making a
 * new file and freeing the replaced one cost milliseconds per save (the
 * filesystem's journal, and the flush its rename heuristic starts), the
 * whole gap of a reshard against Redis 7.0, which rewrites nodes.conf in
 * place, non-atomically (bench/README.md, "Resharding"). Both inodes stay
 * locked, so whichever holds the name is. A file that does not end in a newline was cut
 * short (every writer ends each line with one) and is refused, as is any
 * line that does not parse, naming it: a node must not start with half of
 * what it promised the cluster.
 */
#include "cluster_config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "cluster.h"
#include "fileio.h"
#include "log.h"
#include "mem.h"
#include "server.h"

/* The descriptor holding the lock on the file, -1 before
 * cluster_config_lock. */
static int lock_fd = -1;
/* The spare: the previous version of the file, named <file>.spare, locked
 * and rewritten by the next save; -1 until the first save, or after a save
 * that could not keep the old inode. */
static int spare_fd = -1;

#define SPARE_SUFFIX ".spare"
/* The old inode's name for the moment between link and rename. */
#define OLD_SUFFIX ".old"

/* Redis's representClusterNodeFlags, in its order. */
static const struct {
    unsigned flag;
    const char *name;
} flag_names[] = {
    {CNODE_MYSELF, "myself"},       {CNODE_MASTER, "master"},   {CNODE_SLAVE, "slave"},
    {CNODE_PFAIL, "fail?"},         {CNODE_FAIL, "fail"},       {CNODE_HANDSHAKE, "handshake"},
    {CNODE_NOADDR, "noaddr"},       {CNODE_NOFAILOVER, "nofailover"},
};
#define FLAG_NAMES (sizeof(flag_names) / sizeof(flag_names[0]))

void cluster_describe_node(FILE *f, const struct cluster_node *n, int use_pport)
{
    fprintf(f, "%s %s:%d@%d", n->name, n->ip, use_pport && n->pport ? n->pport : n->port,
            n->cport);
    if (n->hostname)
        fprintf(f, ",%s", n->hostname);
    int any = 0;
    for (size_t i = 0; i < FLAG_NAMES; i++) {
        if (n->flags & flag_names[i].flag) {
            fprintf(f, "%c%s", any ? ',' : ' ', flag_names[i].name);
            any = 1;
        }
    }
    if (!any)
        fputs(" noflags", f);
    fprintf(f, " %s %" PRId64 " %" PRId64 " %" PRIu64 " %s", n->primary ? n->primary->name : "-",
            n->ping_sent, n->pong_received, cluster_node_epoch(n),
            n->link_up || (n->flags & CNODE_MYSELF) ? "connected" : "disconnected");
    for (int s = 0; n->numslots && s < CLUSTER_SLOTS; s++) {
        if (cluster->slots[s] != n)
            continue;
        int end = s;
        while (end + 1 < CLUSTER_SLOTS && cluster->slots[end + 1] == n)
            end++;
        if (end == s)
            fprintf(f, " %d", s);
        else
            fprintf(f, " %d-%d", s, end);
        s = end;
    }
    if (n->flags & CNODE_MYSELF) {
        for (int s = 0; s < CLUSTER_SLOTS; s++) {
            if (cluster->migrating_to[s])
                fprintf(f, " [%d->-%s]", s, cluster->migrating_to[s]->name);
            else if (cluster->importing_from[s])
                fprintf(f, " [%d-<-%s]", s, cluster->importing_from[s]->name);
        }
    }
    fputc('\n', f);
}

char *cluster_describe_nodes(unsigned skip, int use_pport, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    for (int i = 0; i < cluster->node_count; i++)
        if (!(cluster->nodes[i]->flags & skip))
            cluster_describe_node(f, cluster->nodes[i], use_pport);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int cluster_config_lock(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        log_warning("Can't open %s in order to acquire a lock: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        if (errno == EWOULDBLOCK)
            log_warning("Sorry, the cluster configuration file %s is already used by a different "
                        "Redis Cluster node. Please make sure that different nodes use different "
                        "cluster configuration files.",
                        path);
        else
            log_warning("Impossible to lock %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    lock_fd = fd;
    return 0;
}

/* path with suffix appended, into buf of size PATH_BUF. */
#define PATH_BUF 4096
static void path_with(char *buf, const char *path, const char *suffix)
{
    snprintf(buf, PATH_BUF, "%s%s", path, suffix);
}

/* Whether name (still) names the inode open at fd. */
static int names_fd(const char *name, int fd)
{
    struct stat a, b;
    return stat(name, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

void cluster_config_unlock(void)
{
    if (spare_fd >= 0) {
        /* The spare is of no use once the server is gone. */
        char spare[PATH_BUF];
        path_with(spare, server.cfg.cluster_config_file, SPARE_SUFFIX);
        if (names_fd(spare, spare_fd))
            unlink(spare);
        close(spare_fd);
    }
    spare_fd = -1;
    if (lock_fd >= 0)
        close(lock_fd);
    lock_fd = -1;
}

/* ---- loading ---- */

#define MAX_FIELDS (8 + CLUSTER_SLOTS * 2)
#define MAX_FILE (64u << 20)

struct load {
    const char *path;
    int line_no;
};

static int load_error(const struct load *ld, const char *what, const char *field)
{
    log_warning("Unrecoverable error: corrupted cluster config file %s, line %d: %s%s%s%s",
                ld->path, ld->line_no, what, field ? " '" : "", field ? field : "",
                field ? "'" : "");
    return -1;
}

static int is_name(const char *s)
{
    if (strlen(s) != CLUSTER_NAMELEN)
        return 0;
    for (int i = 0; i < CLUSTER_NAMELEN; i++)
        if (!strchr("0123456789abcdefABCDEF", s[i]))
            return 0;
    return 1;
}

/* The node named s, made (with no flags) when the file names it before
 * its own line, as Redis does; NULL when s is no node name. */
static struct cluster_node *node_named(const char *s)
{
    if (!is_name(s))
        return NULL;
    struct cluster_node *n = cluster_lookup(s, CLUSTER_NAMELEN);
    if (!n) {
        n = cluster_node_new(s, 0);
        cluster_add_node(n);
    }
    return n;
}

/* A decimal number in [0, max], the whole of s[0..len). */
static int parse_num(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    if (!len || len > 20)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_slot(const char *s, size_t len, int *slot)
{
    uint64_t v;
    if (parse_num(s, len, CLUSTER_SLOTS - 1, &v) < 0)
        return -1;
    *slot = (int)v;
    return 0;
}

/* "ip:port@cport[,hostname]" (before Redis 4, no "@cport": port + 10000). */
static int parse_addr(struct cluster_node *n, char *s)
{
    char *host = strchr(s, ',');
    if (host)
        *host++ = '\0';
    char *colon = strrchr(s, ':');
    if (!colon || (size_t)(colon - s) >= CLUSTER_IPLEN)
        return -1;
    *colon = '\0';
    char *at = strchr(colon + 1, '@');
    uint64_t port, cport;
    size_t plen = at ? (size_t)(at - colon - 1) : strlen(colon + 1);
    if (parse_num(colon + 1, plen, 65535, &port) < 0)
        return -1;
    if (at) {
        if (parse_num(at + 1, strlen(at + 1), 65535, &cport) < 0)
            return -1;
    } else {
        cport = port + 10000;
    }
    cluster_node_set_addr(n, s, (int)port, (int)cport, host);
    return 0;
}

static int parse_flags(struct cluster_node *n, char *s)
{
    char *state = NULL;
    for (char *tok = strtok_r(s, ",", &state); tok; tok = strtok_r(NULL, ",", &state)) {
        size_t i = 0;
        while (i < FLAG_NAMES && strcasecmp(tok, flag_names[i].name))
            i++;
        if (i < FLAG_NAMES)
            n->flags |= flag_names[i].flag;
        else if (strcasecmp(tok, "noflags"))
            return -1;
    }
    return 0;
}

/* One slot field: "[slot->-id]", "[slot-<-id]", "start-end" or "slot". */
static int parse_slot_field(const struct load *ld, struct cluster_node *n, char *s)
{
    size_t len = strlen(s);
    int start, end;
    if (s[0] == '[') {
        char *dash = strchr(s, '-');
        if (!dash || s[len - 1] != ']' || (dash[1] != '>' && dash[1] != '<') || dash[2] != '-' ||
            parse_slot(s + 1, (size_t)(dash - s - 1), &start) < 0)
            return load_error(ld, "bad open slot", s);
        s[len - 1] = '\0';
        struct cluster_node *peer = node_named(dash + 3);
        if (!peer)
            return load_error(ld, "bad node id in open slot", dash + 3);
        if (dash[1] == '>')
            cluster->migrating_to[start] = peer;
        else
            cluster->importing_from[start] = peer;
        return 0;
    }
    char *dash = strchr(s, '-');
    if (dash) {
        if (parse_slot(s, (size_t)(dash - s), &start) < 0 ||
            parse_slot(dash + 1, strlen(dash + 1), &end) < 0 || end < start)
            return load_error(ld, "bad slot range", s);
    } else if (parse_slot(s, len, &start) < 0) {
        return load_error(ld, "bad slot", s);
    } else {
        end = start;
    }
    for (int slot = start; slot <= end; slot++)
        if (cluster_add_slot(n, slot) < 0 && cluster->slots[slot] != n)
            return load_error(ld, "slot claimed twice", s);
    return 0;
}

static int parse_vars(const struct load *ld, char **argv, int argc)
{
    for (int j = 1; j + 1 < argc; j += 2) {
        uint64_t v;
        if (parse_num(argv[j + 1], strlen(argv[j + 1]), UINT64_MAX, &v) < 0)
            return load_error(ld, "bad number", argv[j + 1]);
        if (!strcasecmp(argv[j], "currentEpoch"))
            cluster->current_epoch = v;
        else if (!strcasecmp(argv[j], "lastVoteEpoch"))
            cluster->last_vote_epoch = v;
        else
            log_warning("Skipping unknown cluster config variable '%s'", argv[j]);
    }
    if (argc % 2 == 0)
        return load_error(ld, "a variable without a value", argv[argc - 1]);
    return 0;
}

static int parse_line(const struct load *ld, char **argv, int argc)
{
    if (!strcasecmp(argv[0], "vars"))
        return parse_vars(ld, argv, argc);
    if (argc < 8)
        return load_error(ld, "fewer than 8 fields", NULL);
    struct cluster_node *n = node_named(argv[0]);
    if (!n)
        return load_error(ld, "bad node id", argv[0]);
    if (parse_addr(n, argv[1]) < 0)
        return load_error(ld, "bad address", argv[1]);
    if (parse_flags(n, argv[2]) < 0)
        return load_error(ld, "unknown flag in", argv[2]);
    if (n->flags & CNODE_MYSELF) {
        if (cluster->myself && cluster->myself != n)
            return load_error(ld, "a second node flagged myself", NULL);
        cluster->myself = n;
    }
    if (strcmp(argv[3], "-")) {
        struct cluster_node *primary = node_named(argv[3]);
        if (!primary || primary == n)
            return load_error(ld, "bad primary id", argv[3]);
        n->primary = primary;
    }
    uint64_t ping, pong, epoch;
    if (parse_num(argv[4], strlen(argv[4]), INT64_MAX, &ping) < 0 ||
        parse_num(argv[5], strlen(argv[5]), INT64_MAX, &pong) < 0)
        return load_error(ld, "bad ping or pong time", NULL);
    if (parse_num(argv[6], strlen(argv[6]), UINT64_MAX, &epoch) < 0)
        return load_error(ld, "bad config epoch", argv[6]);
    /* Redis keeps only whether a ping was pending and a pong heard. */
    n->ping_sent = ping ? mstime() : 0;
    n->pong_received = pong ? mstime() : 0;
    n->config_epoch = epoch;
    if (strcmp(argv[7], "connected") && strcmp(argv[7], "disconnected"))
        return load_error(ld, "bad link state", argv[7]);
    for (int j = 8; j < argc; j++)
        if (parse_slot_field(ld, n, argv[j]) < 0)
            return -1;
    return 0;
}

/* The whole file in a NUL-terminated xmalloc'ed buffer; NULL with *len 0
 * when it does not exist, NULL with *len 1 on an error (logged). */
static char *read_file(const char *path, size_t *len)
{
    *len = 1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            *len = 0;
            return NULL;
        }
        log_warning("Loading the cluster node config from %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || (uint64_t)st.st_size > MAX_FILE) {
        log_warning("Loading the cluster node config from %s: unreadable or too large", path);
        close(fd);
        return NULL;
    }
    size_t size = (size_t)st.st_size, got = 0;
    char *buf = xmalloc(size + 1);
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            break;
        }
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    *len = got;
    return buf;
}

int cluster_config_load(const char *path)
{
    size_t len;
    char *buf = read_file(path, &len);
    if (!buf)
        return len ? -1 : 0;
    if (!len) {
        xfree(buf);
        return 0;
    }
    struct load ld = {.path = path, .line_no = 0};
    char **argv = xmalloc(MAX_FIELDS * sizeof(*argv));
    int rc = 0;
    if (buf[len - 1] != '\n') {
        ld.line_no = 1;
        for (size_t i = 0; i < len; i++)
            ld.line_no += buf[i] == '\n';
        rc = load_error(&ld, "the file ends in the middle of this line (truncated?)", NULL);
    }
    char *save = NULL;
    for (char *line = buf; rc == 0 && line < buf + len; line = save + 1) {
        save = strchr(line, '\n');
        *save = '\0';
        ld.line_no++;
        int argc = 0;
        char *state = NULL;
        for (char *tok = strtok_r(line, " \t\r", &state); tok && argc < MAX_FIELDS;
             tok = strtok_r(NULL, " \t\r", &state))
            argv[argc++] = tok;
        if (argc == 0)
            continue; /* Redis skips blank lines */
        rc = parse_line(&ld, argv, argc);
    }
    xfree(argv);
    xfree(buf);
    if (rc < 0)
        return -1;
    if (!cluster->myself) {
        log_warning("Unrecoverable error: corrupted cluster config file %s: no node is flagged "
                    "myself",
                    path);
        return -1;
    }
    for (int i = 0; i < cluster->node_count; i++) {
        struct cluster_node *n = cluster->nodes[i];
        if (n->primary && !(n->flags & CNODE_SLAVE))
            n->flags |= CNODE_SLAVE;
    }
    log_notice("Node configuration loaded, I'm %.40s", cluster->myself->name);
    if (cluster_max_epoch() > cluster->current_epoch)
        cluster->current_epoch = cluster_max_epoch();
    return 1;
}

/* ---- saving ---- */

/* A new spare at <file>.spare, locked (a leftover of a process that died
 * is replaced); its descriptor, or -1 with errno set. */
static int spare_open(const char *spare)
{
    if (unlink(spare) < 0 && errno != ENOENT)
        return -1;
    int fd = open(spare, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int saved = errno;
        close(fd);
        unlink(spare);
        errno = saved;
        return -1;
    }
    return fd;
}

/* The spare holds exactly the nodes' lines then the vars line (and is on
 * disk with do_fsync): rewritten in place, cut after. 0, or -1 with errno
 * set. */
static int spare_fill(const char *nodes, size_t nlen, const char *vars, size_t vlen,
                      int do_fsync)
{
    if (lseek(spare_fd, 0, SEEK_SET) < 0 || write_full(spare_fd, nodes, nlen) < 0 ||
        write_full(spare_fd, vars, vlen) < 0 || ftruncate(spare_fd, (off_t)(nlen + vlen)) < 0 ||
        (do_fsync && fsync(spare_fd) < 0))
        return -1;
    return 0;
}

/* Renames the filled spare over path. The inode path named is kept as the
 * next spare when it can take the spare's name first (a hard link), else
 * let go (freed: a filesystem without hard links, a folder that changed
 * under a relative path). 0, or -1 with errno set when the rename failed
 * (the spare is then dropped, the file untouched). */
static int spare_take_name(const char *path, const char *spare)
{
    char old[PATH_BUF];
    path_with(old, path, OLD_SUFFIX);
    int keep = lock_fd >= 0 && names_fd(path, lock_fd);
    if (keep && link(path, old) < 0) {
        /* A leftover of a process that died between link and rename. */
        keep = errno == EEXIST && unlink(old) == 0 && link(path, old) == 0;
    }
    if (rename(spare, path) < 0) {
        int saved = errno;
        if (keep)
            unlink(old);
        close(spare_fd);
        spare_fd = -1;
        errno = saved;
        return -1;
    }
    int prev = lock_fd;
    lock_fd = spare_fd; /* the new file, locked since it was opened */
    spare_fd = -1;
    if (keep && rename(old, spare) == 0) {
        spare_fd = prev;
    } else {
        if (keep)
            unlink(old);
        if (prev >= 0)
            close(prev);
    }
    return 0;
}

int cluster_config_save(const char *path, int do_fsync)
{
    size_t len = 0;
    char *nodes = cluster_describe_nodes(CNODE_HANDSHAKE, 0, &len);
    if (!nodes)
        return -1;
    char vars[96];
    int vlen = snprintf(vars, sizeof(vars), "vars currentEpoch %" PRIu64 " lastVoteEpoch %" PRIu64 "\n",
                        cluster->current_epoch, cluster->last_vote_epoch);
    char spare[PATH_BUF];
    path_with(spare, path, SPARE_SUFFIX);
    /* A second try, on a new spare, when the first could not rename (the
     * spare's name was taken away, or the folder changed). */
    int rc = -1;
    for (int attempt = 0; attempt < 2 && rc < 0; attempt++) {
        if (spare_fd < 0 || !names_fd(spare, spare_fd)) {
            if (spare_fd >= 0)
                close(spare_fd);
            spare_fd = spare_open(spare);
        }
        if (spare_fd >= 0 && spare_fill(nodes, len, vars, (size_t)vlen, do_fsync) == 0)
            rc = spare_take_name(path, spare);
    }
    int saved = errno;
    free(nodes);
    if (rc < 0) {
        errno = saved;
        log_warning("Could not save the cluster configuration to %s: %s", path, strerror(errno));
        return -1;
    }
    if (do_fsync && fsync_dir_of(path) < 0)
        log_warning("Could not fsync the folder of %s: %s", path, strerror(errno));
    return 0;
}

void cluster_changed(unsigned todo)
{
    cluster->todo |= todo | CLUSTER_TODO_UPDATE_STATE;
    cluster_update_state();
    cluster->todo &= ~CLUSTER_TODO_UPDATE_STATE;
    if (cluster->todo & CLUSTER_TODO_SAVE) {
        /* Redis's clusterSaveConfigOrDie: a node that cannot record what
         * it promised must not go on serving. */
        if (cluster_config_save(server.cfg.cluster_config_file,
                                (cluster->todo & CLUSTER_TODO_FSYNC) != 0) < 0) {
            log_warning("Fatal: can't update cluster config file.");
            exit(1);
        }
        cluster->todo &= ~(CLUSTER_TODO_SAVE | CLUSTER_TODO_FSYNC);
    }
}
