# Tests of the sorted sets (server/data/zset.[ch], server/commands/cmd_zset.c). include()d from
# tests/CMakeLists.txt after integration.cmake (fragments are included in name order), so
# relative paths start in tests/ and rbkv_harness exists.

# The value against a sorted-array model, zs_check() after every change; SEED=<n> replays.
# About 1 s a part at -O2 (release: 5 s, two million members), a few times that under ASan.
add_executable(test_zset unit/test_zset.c)
target_link_libraries(test_zset PRIVATE rbkv_server_core)
foreach(part random lex scan clone cut cutlazy resize release)
  add_test(NAME zset_${part} COMMAND test_zset ${part})
  set_tests_properties(zset_${part} PROPERTIES LABELS unit TIMEOUT 120)
endforeach()

# End-to-end against the real server with hiredis: every command, its errors, RESP3 shapes and
# a random differential part against real Redis's rules kept in a model.
rbkv_server_test(integration_zset integration/test_zset.c 120 integration)
# Against redis-server 7.0 itself, less Redis 7.2's ZRANK WITHSCORE.
rbkv_on_redis(integration_zset)
