/*
 * test_disk_full.c - end-to-end tests on a really full disk: the server's
 * `dir` is a small tmpfs. When the append-only log or a snapshot cannot be
 * written, writes are refused with MISCONF (reads go on), no write is
 * acknowledged that is not in the log, the snapshot already on disk stays
 * whole, and once space is freed the server recovers by itself; a restart
 * then finds every acknowledged write.
 *
 * Mounting needs root (CAP_SYS_ADMIN): without it the test reports SKIP
 * (exit 77) instead of passing; the failure-injection tests in test_aof.c
 * and test_persistence.c cover the same paths with a file size limit.
 *
 * Owns: the tmpfs mount, in a mount namespace of its own, and its servers.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define DISK_SIZE "size=4m"
#define RESERVE (512 * 1024)        /* a file removed to free space again */
#define VALUE (64 * 1024)           /* bytes per big value */
#define MAX_VALUES 200              /* far more than the disk holds */
#define RECOVER_MS (5000 * H_SLOW)  /* the log's write is retried every second */
#define BGSAVE_WAIT_MS (10000 * H_SLOW)
#define SKIP_CODE 77

static char disk[] = "/tmp/rbkv-full-XXXXXX";
static int mounted;

static void path_on_disk(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", disk, name);
}

/* Writes n bytes into name on the disk; returns how many fit. */
static size_t write_file(const char *name, size_t n)
{
    char p[512];
    path_on_disk(name, p, sizeof(p));
    return h_write_filler(p, n);
}

static void remove_file(const char *name)
{
    char p[512];
    path_on_disk(name, p, sizeof(p));
    unlink(p);
}

/* Empties the disk between tests. */
static void clear_disk(void)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'/* '%s'/.[!.]* 2>/dev/null", disk, disk);
    if (system(cmd) != 0)
        fprintf(stderr, "clearing %s failed\n", disk);
}

/* h_reopen on the disk: h_stop removed the test's own dir, which only had
 * the server's output in it, so it is made again for the next output. */
static redisContext *reopen(struct h_server *s, const char *const *flags)
{
    mkdir(s->dir, 0700);
    return h_reopen(s, flags);
}

static char *big_value(void)
{
    char *v = malloc(VALUE + 1);
    memset(v, 'v', VALUE);
    v[VALUE] = '\0';
    return v;
}

/* SETs big:i until a write is not acknowledged: returns how many were (each
 * holds the value), and leaves c usable (reconnected when the server closed
 * it rather than acknowledge). */
static int fill_until_refused(const struct h_server *s, redisContext **c, const char *value)
{
    int acked = 0;
    for (int i = 0; i < MAX_VALUES; i++) {
        char key[32];
        snprintf(key, sizeof(key), "big:%d", i);
        redisReply *r = H_CALL(*c, "SET", key, value);
        int ok = r && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK");
        freeReplyObject(r);
        if (!ok) {
            redisFree(*c);
            *c = h_connect(s);
            return acked;
        }
        acked++;
    }
    CHECK(0, "%d writes of %d bytes fit on a %s disk", MAX_VALUES, VALUE, DISK_SIZE);
    return acked;
}

/* Polls SET until it is accepted again: returns 1, or 0 at the deadline. */
static int wait_writable(redisContext *c)
{
    int64_t until = h_now_ms() + RECOVER_MS;
    while (h_now_ms() < until) {
        redisReply *r = H_CALL(c, "SET", "probe", "1");
        int ok = r && r->type == REDIS_REPLY_STATUS;
        freeReplyObject(r);
        if (ok)
            return 1;
        h_sleep_ms(100);
    }
    return 0;
}

/* appendfsync always on a full disk: the write that does not fit is not
 * acknowledged (its client is closed), later ones get MISCONF naming the
 * error, reads work; freeing space brings writes back; a restart has every
 * acknowledged write. */
static void test_log_on_full_disk(void)
{
    struct h_server s;
    char *value = big_value();
    clear_disk();
    CHECK(write_file("reserve", RESERVE) == RESERVE, "writing the reserve file");
    redisContext *c =
        h_open(&s, H_FLAGS("--dir", disk, "--appendonly", "yes", "--appendfsync", "always"));
    if (!c) {
        free(value);
        return;
    }
    EXPECT_OK(c, "SET", "small", "before");
    int acked = fill_until_refused(&s, &c, value);
    CHECK(acked > 10 && acked < MAX_VALUES, "%d big values acknowledged", acked);
    if (!c) {
        free(value);
        return;
    }
    EXPECT_MATCH(c, "-MISCONF Errors writing to the AOF file: No space left on device*", "SET",
                 "refused", "x");
    EXPECT_MATCH(c, "-MISCONF *", "DEL", "small");
    EXPECT_BULK(c, "before", "GET", "small");
    EXPECT_MATCH(c, "*aof_last_write_status:err*", "INFO", "persistence");

    remove_file("reserve");
    CHECK(wait_writable(c), "writes still refused %d ms after space was freed", RECOVER_MS);
    EXPECT_MATCH(c, "*aof_last_write_status:ok*", "INFO", "persistence");
    EXPECT_OK(c, "SET", "small", "after");
    h_close(&s, c);

    c = reopen(&s, H_FLAGS("--dir", disk, "--appendonly", "yes"));
    if (!c) {
        free(value);
        return;
    }
    EXPECT_BULK(c, "after", "GET", "small");
    int found = 0;
    for (int i = 0; i < acked; i++) {
        char key[32];
        snprintf(key, sizeof(key), "big:%d", i);
        redisReply *r = H_CALL(c, "STRLEN", key);
        found += r && r->type == REDIS_REPLY_INTEGER && r->integer == VALUE;
        freeReplyObject(r);
    }
    CHECK(found == acked, "%d of %d acknowledged values after the restart", found, acked);
    h_close(&s, c);
    h_clean_dir(&s);
    free(value);
}

/* Snapshots on a full disk: SAVE and BGSAVE fail, the file already saved is
 * byte for byte the same and no temp file is left, writes get MISCONF after
 * the failed BGSAVE (save rules are set, as Redis requires for that); after space is freed BGSAVE works and a restart loads
 * everything. */
static void test_snapshot_on_full_disk(void)
{
    struct h_server s;
    char *value = big_value();
    clear_disk();
    redisContext *c = h_open(&s, H_FLAGS("--dir", disk, "--save", "3600 1"));
    if (!c) {
        free(value);
        return;
    }
    for (int i = 0; i < 20; i++) {
        char key[32];
        snprintf(key, sizeof(key), "big:%d", i);
        EXPECT_OK(c, "SET", key, value);
    }
    EXPECT_OK(c, "SAVE");
    char p[512];
    size_t before_len = 0, after_len = 0;
    path_on_disk("dump.rbkv", p, sizeof(p));
    char *before = h_read_file(p, &before_len);
    CHECK(before && before_len > 20 * VALUE, "dump.rbkv after SAVE: %zu bytes", before_len);

    write_file("filler", 64 << 20); /* until the disk is full */
    EXPECT_OK(c, "SET", "later", "1");
    EXPECT_MATCH(c, "-ERR*", "SAVE");
    EXPECT_STATUS(c, "Background saving started", "BGSAVE");
    CHECK(!strcmp(h_wait_bgsave(c, BGSAVE_WAIT_MS), "err"), "BGSAVE on a full disk should fail");
    EXPECT_MATCH(c, "-MISCONF *", "SET", "later", "2");
    EXPECT_BULK(c, "1", "GET", "later");
    char *after = h_read_file(p, &after_len);
    CHECK(after && before && after_len == before_len && !memcmp(before, after, before_len),
          "dump.rbkv changed by failed saves (%zu -> %zu bytes)", before_len, after_len);
    free(after);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "ls '%s' | grep -v -x -e dump.rbkv -e filler -q", disk);
    CHECK(system(cmd) != 0, "failed saves left files in %s", disk);

    remove_file("filler");
    EXPECT_STATUS(c, "Background saving started", "BGSAVE");
    CHECK(!strcmp(h_wait_bgsave(c, BGSAVE_WAIT_MS), "ok"), "BGSAVE after space was freed");
    EXPECT_OK(c, "SET", "later", "3");
    EXPECT_OK(c, "SAVE");
    h_close(&s, c);

    c = reopen(&s, H_FLAGS("--dir", disk));
    if (!c) {
        free(before);
        free(value);
        return;
    }
    EXPECT_BULK(c, "3", "GET", "later");
    EXPECT_INT(c, 21, "DBSIZE");
    h_close(&s, c);
    h_clean_dir(&s);
    free(before);
    free(value);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (!mkdtemp(disk)) {
        perror("mkdtemp");
        return 1;
    }
    /* In a mount namespace of our own (the servers inherit it), the tmpfs
     * goes away with the last of us even after a crash. A propagation change
     * ignores source and type; they are named only because valgrind checks
     * them as strings. */
    if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0 ||
        mount("tmpfs", disk, "tmpfs", 0, DISK_SIZE) < 0) {
        printf("SKIP: cannot mount a tmpfs at %s (%s): needs root\n", disk, strerror(errno));
        rmdir(disk);
        return SKIP_CODE;
    }
    mounted = 1;
    H_RUN(test_log_on_full_disk);
    H_RUN(test_snapshot_on_full_disk);
    int rc = h_finish();
    clear_disk();
    if (mounted && umount(disk) < 0)
        fprintf(stderr, "umount %s: %s\n", disk, strerror(errno));
    rmdir(disk);
    return rc;
}
