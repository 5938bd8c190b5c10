# Redis's RDB file: rbkv starting from redis-server's dump.rdb, --convert-rdb both ways, corrupt
# files refused (server/persist/rdb_file.c, rdb_convert.c).
rbkv_server_test(integration_rdb_file integration/test_rdb_file.c 300 integration)
