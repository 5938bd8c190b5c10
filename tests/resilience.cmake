# Failure paths, end to end (docs/testing.md, "Failure paths"). include()d from tests/CMakeLists.txt
# after integration.cmake (fragments are included in name order), so relative paths start in
# tests/ and rbkv_harness exists.

# A background child killed by kill -9 while its parent lives: BGSAVE (also against redis-server),
# AOF rewrite, a replica's full sync.
rbkv_server_test(integration_child_failure integration/test_child_failure.c 300 integration)

# A replica's misbehaving primary, played by the test on a socket: a corrupt snapshot, a bad
# +FULLRESYNC, an overlong handshake line, silence (repl-timeout), a full disk during the sync
# (a tmpfs: that case reports SKIP without root).
rbkv_server_test(integration_replica_failure integration/test_replica_failure.c 300 integration)

# The aclfile on a read-only and on a full file system (a tmpfs: SKIP without root), and ACL LOAD
# of a missing file; replies compared with redis-server's.
rbkv_server_test(integration_acl_file integration/test_acl_file.c 120 integration)
