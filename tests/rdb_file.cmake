# Redis's RDB file: rbkv starting from redis-server's dump.rdb, --convert-rdb both ways, corrupt
# files refused (server/persist/rdb_file.c, rdb_convert.c).
rbkv_server_test(integration_rdb_file integration/test_rdb_file.c 300 integration)
# The fuzz target's seeds, which the test also loads in rbkv and redis-server side by side.
target_compile_definitions(test_integration_rdb_file PRIVATE
                           RDB_SEEDS="${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/rdb_file")
