# Transactions (server/core/multi.c, server/core/watch.c), end to end. include()d from tests/CMakeLists.txt
# after integration.cmake (fragments are included in name order), so relative paths start in
# tests/ and rbkv_harness exists. About 1 s; the expiry part sleeps.
rbkv_server_test(integration_multi integration/test_multi.c 60 integration)
# Every test but test_ordered_in_multi (rbkv's ordered commands) against redis-server itself.
rbkv_on_redis(integration_multi test_errors test_exec_oom test_watch test_watch_written_keys
              test_watch_expiry test_watch_flush test_pipelined test_client_list test_disconnect)
