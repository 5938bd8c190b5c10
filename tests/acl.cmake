# Users and permissions (server/core/acl.c, server/commands/cmd_acl.c), end to end. include()d from
# tests/CMakeLists.txt; about 2 s, most of it the wrong-password flood.
rbkv_server_test(integration_acl integration/test_acl.c 60 integration)
rbkv_server_test(integration_acl_config integration/test_acl_config.c 60 integration)
