# Tests of the stream commands (server/commands/cmd_xstream.c on server/data/xstream.[ch]).
# include()d from tests/CMakeLists.txt after integration.cmake (fragments are included in name
# order), so relative paths start in tests/ and rbkv_harness exists.

# End-to-end against the real server with hiredis: every reply and error beside redis-server's
# in RESP2 and RESP3, blocking XREAD, keyspace events, the log and the snapshot, and a random
# run against redis-server (SEED=<n> replays it).
rbkv_server_test(integration_xstream integration/test_xstream.c 180 integration)
