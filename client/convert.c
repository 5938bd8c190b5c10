/*
 * convert.c - rbkv-cli convert IN OUT: a Redis RDB file into an rbkv
 * snapshot or back, with progress.
 *
 * The client never links server code, and the RDB codec is server code, so
 * the conversion runs in rbkv-server's own reader and writer: this mode
 * execs `rbkv-server --convert-rdb IN OUT`, which draws the progress line
 * on stderr (rdb_convert.c). It owns only finding that binary: $RBKV_SERVER,
 * else rbkv-server beside this rbkv-cli (an install), else
 * ../server/rbkv-server from it (the build tree), else rbkv-server on PATH.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Writes dir(self)/rel into buf when that file is executable. Returns 0, or -1. */
static int beside_self(const char *rel, char *buf, size_t cap)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    int len = snprintf(buf, cap, "%s/%s", self, rel);
    return len > 0 && (size_t)len < cap && access(buf, X_OK) == 0 ? 0 : -1;
}

int run_convert(const char *in, const char *out)
{
    char path[PATH_MAX];
    const char *server = getenv("RBKV_SERVER");
    if (!server || !*server) {
        if (beside_self("rbkv-server", path, sizeof(path)) == 0 ||
            beside_self("../server/rbkv-server", path, sizeof(path)) == 0)
            server = path;
        else
            server = "rbkv-server";
    }
    fflush(stdout);
    execlp(server, server, "--convert-rdb", in, out, (char *)NULL);
    fprintf(stderr, "rbkv-cli: cannot run %s (set RBKV_SERVER to rbkv-server's path): %s\n",
            server, strerror(errno));
    return CLI_ERR_USAGE;
}
