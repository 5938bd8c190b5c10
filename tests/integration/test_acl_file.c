/*
 * test_acl_file.c - end-to-end tests of the aclfile when the disk says no:
 * ACL SAVE on a read-only file system and on a full one answers Redis's
 * error, logs the cause, leaves the old file byte for byte and no temp file,
 * and keeps the users in memory; ACL LOAD of a file that is gone answers
 * Redis's error and changes no user. Every reply is compared with
 * redis-server's when it is installed (both servers share the one aclfile,
 * so even the paths in the error texts are the same).
 *
 * The failing disk is a small tmpfs, in a mount namespace of our own (the
 * servers inherit it), remounted read-only or filled up: that needs root,
 * and without it the SAVE tests report SKIP while the LOAD test runs.
 *
 * Owns: the tmpfs, the aclfile, and its servers.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "harness.h"

#define DISK_SIZE "size=64k"
#define USERS                                                                                   \
    "user default on nopass ~* &* +@all\n"                                     \
    "user alice on #9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ~a:* "      \
    "resetchannels -@all +get\n"

static char disk[] = "/tmp/rbkv-aclfile-XXXXXX";
static char aclfile[600];
static int mounted;

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int bad = fputs(text, f) < 0;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

/* Whether disk holds anything but the aclfile (and, when named, keep). */
static int stray_files(const char *keep)
{
    DIR *d = opendir(disk);
    struct dirent *e;
    int stray = 0;
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            strcmp(e->d_name, "users.acl") && (!keep || strcmp(e->d_name, keep)))
            stray = 1;
    }
    if (d)
        closedir(d);
    return stray;
}

/* rbkv, and redis-server in *ref_ok when it runs, both on the aclfile. */
static redisContext *open_pair(struct h_server *s, struct h_server *ref, redisContext **r,
                               int *ref_ok)
{
    *r = NULL;
    *ref_ok = 0;
    if (write_text(aclfile, USERS) < 0) {
        CHECK(0, "writing %s: %s", aclfile, strerror(errno));
        return NULL;
    }
    redisContext *c = h_open(s, H_FLAGS("--aclfile", aclfile));
    if (!c)
        return NULL;
    if (!h_is_reference() && h_start_reference(ref, H_FLAGS("--aclfile", aclfile)) == 0) {
        *ref_ok = 1;
        *r = h_connect(ref);
    } else {
        printf("  no redis-server to compare with\n");
    }
    return c;
}

static void close_pair(struct h_server *s, redisContext *c, struct h_server *ref,
                       redisContext *r, int ref_ok)
{
    h_close(s, c);
    h_clean_dir(s);
    if (r)
        redisFree(r);
    if (ref_ok) {
        h_stop(ref);
        h_clean_dir(ref);
    }
}

/* ACL SAVE that cannot write: Redis's error, the cause in the log, the old
 * file as it was, no temp file, the users in memory unchanged; once the
 * disk is writable again SAVE works. */
static void save_refused(int read_only)
{
    struct h_server s, ref;
    redisContext *r;
    int ref_ok;
    char filler[700];
    size_t before_len = 0, after_len = 0;
    snprintf(filler, sizeof(filler), "%s/filler", disk);
    redisContext *c = open_pair(&s, &ref, &r, &ref_ok);
    if (!c)
        return;
    char *before = h_read_file(aclfile, &before_len);
    H_SAME(c, r, "ACL", "SETUSER", "bob", "on", ">secret", "~b:*", "+set");
    if (read_only) {
        CHECK(mount("tmpfs", disk, "tmpfs", MS_REMOUNT | MS_RDONLY, DISK_SIZE) == 0,
              "remounting %s read-only: %s", disk, strerror(errno));
    } else {
        h_write_filler(filler, SIZE_MAX); /* until the disk is full */
    }
    EXPECT_ERR(c, "ERR There was an error trying to save the ACLs. Please check the server logs "
                  "for more information",
               "ACL", "SAVE");
    H_SAME(c, r, "ACL", "SAVE");
    CHECK(h_file_has(&s, "server.log",
                     read_only ? "Opening temp ACL file for ACL SAVE: Read-only file system"
                               : "ACL SAVE: No space left on device"),
          "no log line for the failed ACL SAVE in %s", s.dir);
    char *after = h_read_file(aclfile, &after_len);
    CHECK(before && after && before_len == after_len && !memcmp(before, after, before_len),
          "the aclfile changed by a failed ACL SAVE");
    free(after);
    CHECK(!stray_files(read_only ? NULL : "filler"), "a failed ACL SAVE left a file in %s", disk);
    H_SAME(c, r, "ACL", "LIST");
    EXPECT_MATCH(c, "[*user bob on*]", "ACL", "LIST");

    if (read_only)
        CHECK(mount("tmpfs", disk, "tmpfs", MS_REMOUNT, DISK_SIZE) == 0,
              "remounting %s writable: %s", disk, strerror(errno));
    else
        unlink(filler);
    EXPECT_OK(c, "ACL", "SAVE");
    after = h_read_file(aclfile, &after_len);
    CHECK(after && strstr(after, "user bob on"), "bob is not in the saved aclfile");
    free(after);
    free(before);
    close_pair(&s, c, &ref, r, ref_ok);
}

static void test_save_read_only(void)
{
    if (!mounted) {
        printf("  SKIP: no tmpfs to make read-only (needs root)\n");
        return;
    }
    save_refused(1);
}

static void test_save_disk_full(void)
{
    if (!mounted) {
        printf("  SKIP: no tmpfs to fill (needs root)\n");
        return;
    }
    save_refused(0);
}

/* ACL LOAD when the aclfile is gone: Redis's error naming the file, and
 * the users as they were. */
static void test_load_missing(void)
{
    struct h_server s, ref;
    redisContext *r;
    int ref_ok;
    char want[800];
    redisContext *c = open_pair(&s, &ref, &r, &ref_ok);
    if (!c)
        return;
    H_SAME(c, r, "ACL", "SETUSER", "bob", "on", ">secret", "~b:*", "+set");
    char *users = H_REPLY_TEXT(c, "ACL", "LIST");
    unlink(aclfile);
    snprintf(want, sizeof(want),
             "-ERR Error loading ACLs, opening file '%s': No such file or directory", aclfile);
    EXPECT_REPLY(c, want, "ACL", "LOAD");
    H_SAME(c, r, "ACL", "LOAD");
    EXPECT_REPLY(c, users, "ACL", "LIST");
    H_SAME(c, r, "ACL", "LIST");
    EXPECT_OK(c, "AUTH", "bob", "secret");
    free(users);
    close_pair(&s, c, &ref, r, ref_ok);
}

int main(int argc, char **argv)
{
    h_init(argc, argv);
    if (!mkdtemp(disk)) {
        perror("mkdtemp");
        return 1;
    }
    mounted = unshare(CLONE_NEWNS) == 0 &&
              mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == 0 &&
              mount("tmpfs", disk, "tmpfs", 0, DISK_SIZE) == 0;
    snprintf(aclfile, sizeof(aclfile), "%s/users.acl", disk);
    H_RUN(test_save_read_only);
    H_RUN(test_save_disk_full);
    H_RUN(test_load_missing);
    int rc = h_finish();
    unlink(aclfile);
    if (mounted && umount(disk) < 0)
        fprintf(stderr, "umount %s: %s\n", disk, strerror(errno));
    rmdir(disk);
    return rc;
}
