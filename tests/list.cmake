# Tests of the list commands (server/commands/cmd_list.c; the value is server/data/olist.[ch], whose
# own tests are in olist.cmake). include()d from tests/CMakeLists.txt after integration.cmake
# (fragments are included in name order), so rbkv_server_test exists.

# End-to-end against the real server with hiredis: every command and error path compared with
# redis-server 7.0 in RESP2 and RESP3 where it is installed, COMMAND INFO, the settings, chunk sizes,
# a long list, dirty counts, keyspace events, WATCH, and a random differential run. SEED=<n> replays.
rbkv_server_test(integration_list integration/test_list.c 180 integration)
# Its fixed expectations against redis-server itself (the comparisons have nothing to compare then).
rbkv_on_redis(integration_list)
# The blocking list pops and moves are tested with the sorted-set ones: blocking.cmake.
