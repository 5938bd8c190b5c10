# Replication's operator-facing behaviour side by side with redis-server (issue 34): the log lines
# of a full sync, partial resyncs and a lost link on both sides, in the same order; MASTERDOWN at
# EXEC on a replica whose link is down (tests/integration/test_repl_log.c). include()d from
# tests/CMakeLists.txt after integration.cmake, so rbkv_harness exists.
rbkv_server_test(integration_repl_log integration/test_repl_log.c 300 integration)
rbkv_on_redis(integration_repl_log)
