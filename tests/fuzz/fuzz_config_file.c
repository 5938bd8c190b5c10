/*
 * fuzz_config_file.c - libFuzzer target for the config-file parser
 * (config_load_file in server/core/config.c: lines, quoting and escapes,
 * every setting's value parser, rename-command and "user" lines, whose
 * rules acl.c checks) and, for what it accepts, CONFIG REWRITE.
 *
 * Input: the bytes of a config file, loaded into a struct config of its own
 * (config_init's defaults), never the server's. Checked, aborting on a
 * violation:
 *  1. Nothing crashes, leaks or reads out of bounds; a refused file gets
 *     Redis's error naming the line.
 *  2. An accepted file, rewritten with config_rewrite (its "user" lines
 *     dropped, as none are given) and loaded again into fresh defaults, gives
 *     every setting the same CONFIG GET text.
 * "dir" changes the working directory as it loads: the target goes back to
 * its own after each input, so libFuzzer's relative paths stay right.
 * In a normal build tests/fuzz/replay_main.c runs the corpus through this file.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "config_file.h"
#include "config_rewrite.h"
#include "harness.h"
#include "mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static char rewritten[96];
static int home = -1;

static void remove_dir(void)
{
    unlink(rewritten);
    rmdir(dir);
}

/* A directory of our own for the rewritten file (rewrite renames a
 * temporary file next to it), removed at exit. */
static void setup(void)
{
    if (home >= 0)
        return;
    home = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    snprintf(dir, sizeof(dir), "/tmp/rbkv-fuzz-config-XXXXXX");
    if (home < 0 || !mkdtemp(dir))
        abort();
    snprintf(rewritten, sizeof(rewritten), "%s/rewritten.conf", dir);
    atexit(remove_dir);
}

static void copy_file(const uint8_t *data, size_t size, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct config cfg, again;
    char err[1024];
    const char *path;

    harness_init();
    setup();
    harness_file_fill(harness_file(0, &path), data, size);
    if (config_init(&cfg) < 0)
        abort();
    err[0] = '\0';
    if (config_load_file(&cfg, path, err, sizeof(err)) < 0) {
        if (!strstr(err, "at line "))
            abort();
    } else {
        /* The rewrite starts from the file as it was, comments and all. */
        copy_file(data, size, rewritten);
        if (config_rewrite(&cfg, rewritten, NULL, 0, err, sizeof(err)) < 0) {
            fprintf(stderr, "config_rewrite: %s\n", err);
            abort();
        }
        if (config_init(&again) < 0)
            abort();
        if (config_load_file(&again, rewritten, err, sizeof(err)) < 0) {
            fprintf(stderr, "the rewritten file does not load: %s\n", err);
            abort();
        }
        for (size_t i = 0; i < config_count(); i++) {
            /* By length: a binary-safe setting's value may hold NULs. */
            size_t alen, blen;
            char *a = config_get_len(&cfg, i, &alen), *b = config_get_len(&again, i, &blen);
            if (alen != blen || memcmp(a, b, alen) != 0) {
                fprintf(stderr, "%s: '%s' before the rewrite, '%s' after\n", config_name(i), a, b);
                abort();
            }
            xfree(a);
            xfree(b);
        }
        config_destroy(&again);
    }
    config_destroy(&cfg);
    if (fchdir(home) < 0)
        abort();
    return 0;
}
