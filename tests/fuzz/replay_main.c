/*
 * replay_main.c - runs a fuzz target's corpus without libFuzzer.
 *
 * Linked with a tests/fuzz/fuzz_<name>.c when RBKV_FUZZ is off (any compiler),
 * so every corpus runs as an ordinary test, also under ASan and valgrind. Each
 * argument is a file or a directory whose regular files are all replayed.
 * Fails when nothing was replayed, so a missing corpus cannot pass silently;
 * a failing input crashes, as it would under libFuzzer.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data;
    long size;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        perror(path);
        if (f != NULL)
            fclose(f);
        return -1;
    }
    /* An exact-size copy, so ASan catches a read past the input. */
    data = malloc(size ? (size_t)size : 1);
    if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size) {
        perror(path);
        free(data);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, (size_t)size);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    long replayed = 0;

    for (int i = 1; i < argc; i++) {
        struct stat st;
        DIR *dir;
        struct dirent *e;

        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (replay_file(argv[i]) != 0)
                return 1;
            replayed++;
            continue;
        }
        if ((dir = opendir(argv[i])) == NULL) {
            perror(argv[i]);
            return 1;
        }
        while ((e = readdir(dir)) != NULL) {
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
                continue;
            if (replay_file(path) != 0) {
                closedir(dir);
                return 1;
            }
            replayed++;
        }
        closedir(dir);
    }
    printf("replayed %ld inputs\n", replayed);
    return replayed > 0 ? 0 : 1;
}
