/*
 * main.c - rbkv-server's command line: [config-file] [--name value ...],
 * --version, --help, --list-config-md; and the start-up wiring of the layers: the command
 * tables and value types (commands_register), the log's level, and the
 * rest of start-up (wiring.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aof.h"
#include "commands.h"
#include "config.h"
#include "config_doc.h"
#include "config_file.h"
#include "lifecycle.h"
#include "log.h"
#include "mem.h"
#include "process.h"
#include "rdb_convert.h"
#include "rdb_io.h"
#include "resp_heap.h"
#include "server.h"
#include "wiring.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: rbkv-server [/path/to/rbkv.conf] [--name value ...]\n"
            "       rbkv-server --check-aof <file.aof> [--fix]\n"
            "       rbkv-server --convert-rdb <in> <out>   (Redis RDB <-> rbkv snapshot)\n"
            "       rbkv-server --list-config-md   (every setting, as docs/operations.md lists it)\n"
            "       rbkv-server -v | --version\n"
            "       rbkv-server -h | --help\n\n"
            "Examples:\n"
            "       rbkv-server                          (127.0.0.1:6379, in memory)\n"
            "       rbkv-server --port 7777\n"
            "       rbkv-server /etc/rbkv/rbkv.conf --loglevel verbose\n");
}

int main(int argc, char **argv)
{
    char err[512];
    int first_flag = 1;

    process_keep_argv(argc, argv);
    if (argc >= 2 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version"))) {
        printf("rbkv-server v=%s\n", RBKV_VERSION);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "--list-config-md")) {
        char *md = config_doc_markdown();
        fputs(md, stdout);
        xfree(md);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "--check-aof"))
        return aof_check_main(argc - 2, argv + 2);
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    /* Query buffers and replies are part of used_memory, as in Redis: they
     * count toward maxmemory (evict.c) and show in INFO. */
    static const struct resp_heap counted = {xmalloc, xrealloc, xfree};
    resp_set_heap(&counted);
    commands_register();
    log_set_level_source(&server.cfg.loglevel);
    rdb_set_compression_source(&server.cfg.rdbcompression);
    if (config_init(&server.cfg) < 0)
        return 1;
    if (argc >= 2 && !strcmp(argv[1], "--convert-rdb"))
        return rdb_convert_main(argc - 2, argv + 2);
    if (argc >= 2 && strncmp(argv[1], "--", 2) != 0) {
        char path[PATH_MAX];
        if (config_load_file(&server.cfg, argv[1], err, sizeof(err)) < 0) {
            fprintf(stderr, "\n*** FATAL CONFIG FILE ERROR (rbkv %s) ***\n%s\n", RBKV_VERSION, err);
            return 1;
        }
        server.config_file = xstrdup(realpath(argv[1], path) ? path : argv[1]);
        first_flag = 2;
    }
    if (config_load_args(&server.cfg, argc - first_flag, argv + first_flag, err, sizeof(err)) < 0) {
        fprintf(stderr, "\n*** FATAL CONFIG ERROR (rbkv %s) ***\n%s\n", RBKV_VERSION, err);
        usage(stderr);
        return 1;
    }
    if (log_open(server.cfg.logfile) < 0) {
        fprintf(stderr, "Can't open the log file: %s\n", server.cfg.logfile);
        return 1;
    }
    log_notice("rbkv %s starting, pid=%d", RBKV_VERSION, (int)getpid());
    if (wiring_start() < 0) {
        server_shutdown();
        server_cleanup();
        config_destroy(&server.cfg);
        return 1;
    }
    server_run();
    server_cleanup();
    config_destroy(&server.cfg);
    xfree(server.config_file);
    return 0;
}
