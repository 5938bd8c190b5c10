# Transactions (server/core/multi.c, server/core/watch.c), end to end. include()d from tests/CMakeLists.txt
# after integration.cmake (fragments are included in name order), so relative paths start in
# tests/ and rbkv_harness exists. About 1 s; the expiry part sleeps.
rbkv_server_test(integration_multi integration/test_multi.c 60 integration)
