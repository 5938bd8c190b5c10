# DUMP / RESTORE and Redis's RDB value format (server/persist/rdb_*.c, commands/cmd_dump.c).
rbkv_server_test(integration_dump integration/test_dump.c 300 integration)
rbkv_on_redis(integration_dump)
# Streams in DUMP / RESTORE (server/persist/rdb_stream.c), both ways, and corrupt stream payloads.
rbkv_server_test(integration_dump_stream integration/test_dump_stream.c 300 integration)
