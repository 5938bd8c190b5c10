# Tests of the stream commands (server/commands/cmd_xstream.c on server/data/xstream.[ch]).
# include()d from tests/CMakeLists.txt after integration.cmake (fragments are included in name
# order), so relative paths start in tests/ and rbkv_harness exists.

# End-to-end against the real server with hiredis: every reply and error beside redis-server's
# in RESP2 and RESP3, blocking XREAD, keyspace events, the log and the snapshot, and a random
# run against redis-server (SEED=<n> replays it).
rbkv_server_test(integration_xstream integration/test_xstream.c 180 integration)

# The stream against an array model, xs_check() after every change; SEED=<n> replays.
add_executable(test_xstream unit/test_xstream.c)
target_link_libraries(test_xstream PRIVATE rbkv_server_core)
foreach(part random nodes)
  add_test(NAME xstream_${part} COMMAND test_xstream ${part})
  set_tests_properties(xstream_${part} PROPERTIES LABELS unit TIMEOUT 120)
endforeach()
