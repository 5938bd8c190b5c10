# Replication across kinds (issue 36): redis-cli --rdb against rbkv, rbkv as the replica of a
# redis-server primary (full syncs both framings, the stream, GETACK, +CONTINUE after cuts), and
# redis-server as the replica of an rbkv primary with rbkv's own writes as Redis commands
# (tests/integration/test_repl_redis.c). Needs redis-server and redis-cli; skipped without them.
rbkv_server_test(integration_repl_redis integration/test_repl_redis.c 600 integration)
