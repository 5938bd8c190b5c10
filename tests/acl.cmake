# Users and permissions (server/core/acl*.c, server/commands/cmd_acl.c), end to end. include()d from
# tests/CMakeLists.txt; about 2 s, most of it the wrong-password flood.
rbkv_server_test(integration_acl integration/test_acl.c 60 integration)
rbkv_server_test(integration_acl_config integration/test_acl_config.c 60 integration)
# Both run unchanged against redis-server 7.0.15 (test_key_reach, rbkv's own, skips itself there).
rbkv_on_redis(integration_acl)
rbkv_on_redis(integration_acl_config)
# What a change of users does to connected clients (server/core/acl_kill.c, ACL DELUSER and LOAD)
# and the usernames refused; also run against redis-server 7.0.15.
rbkv_server_test(integration_acl_revoke integration/test_acl_revoke.c 60 integration)
rbkv_on_redis(integration_acl_revoke)
# First-argument rules ("+select|0", server/core/acl_rules.c): SETUSER, GETUSER, LIST, DRYRUN and
# the check compared with redis-server 7.0.15 when it is installed; under a second.
rbkv_server_test(integration_acl_firstarg integration/test_acl_firstarg.c 60 integration)
# Key specs (server/core/keyspec.c): COMMAND INFO's, GETKEYS[ANDFLAGS] and the ACL's per-key
# permissions, compared with redis-server 7.0.15 when it is installed; about 2 s.
rbkv_server_test(integration_keyspec integration/test_keyspec.c 60 integration)
# Subcommand rows (CONFIG GET, CLIENT ID, ...): COMMAND INFO, ACL CAT, permissions, scripts and
# INFO commandstats compared with redis-server 7.0.15 when it is installed; about 3 s.
rbkv_server_test(integration_subcommand integration/test_subcommand.c 60 integration)
# The start-up check of the key specs table (keyspec_unknown): a row for no command is caught.
add_executable(test_keyspec_table unit/test_keyspec_table.c)
target_link_libraries(test_keyspec_table PRIVATE rbkv_server_core)
add_test(NAME keyspec_table COMMAND test_keyspec_table)
set_tests_properties(keyspec_table PROPERTIES LABELS unit TIMEOUT 60)
