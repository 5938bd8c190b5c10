# Blocking pops (server/core/blocking.c, BZPOPMIN/BZPOPMAX/BZMPOP/ZMPOP in server/commands/cmd_zset.c), end to
# end. include()d from tests/CMakeLists.txt, so relative paths start in tests/; rbkv_harness comes
# from integration.cmake (a target may be linked before it is defined). About 2 s: the timeout
# tests sleep.
rbkv_server_test(integration_blocking integration/test_blocking.c 60 integration)
rbkv_on_redis(integration_blocking)
