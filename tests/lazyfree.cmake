# The lazy-free thread (server/core/lazyfree.c): each lazyfree-lazy-* path, FLUSHALL/FLUSHDB
# ASYNC and SYNC, replica-lazy-flush, reuse of a key while its old value is freed (under ASan),
# a big value of each kind unlinked while other keys are written, SHUTDOWN with a free pending,
# a PING answered during the UNLINK of a 2M-member sorted set, the settings, and the replies
# beside redis-server's.
rbkv_server_test(integration_lazyfree integration/test_lazyfree.c 300 integration)
rbkv_on_redis(integration_lazyfree test_user_del test_server_del test_expire test_flush test_reuse
              test_every_type test_resetstat test_replica_flush)
