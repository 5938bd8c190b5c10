# Blocking commands (server/core/blocking.c) of both types that have them, end to end: the
# sorted-set pops (BZPOPMIN/BZPOPMAX/BZMPOP/ZMPOP in server/commands/cmd_zset.c) and the list pops
# and moves (BLPOP BRPOP BLMPOP BLMOVE BRPOPLPUSH in server/commands/cmd_list.c), one table of
# scenarios over both. include()d from tests/CMakeLists.txt, so relative paths start in tests/;
# rbkv_harness comes from integration.cmake (a target may be linked before it is defined). About
# 4 s: the timeout tests sleep.
rbkv_server_test(integration_blocking integration/test_blocking.c 60 integration)
rbkv_on_redis(integration_blocking)
