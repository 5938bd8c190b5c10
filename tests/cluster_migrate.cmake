# MIGRATE (server/commands/cmd_migrate.c, migrate_link.c) between rbkv and redis-server 7.0.15
# either way, and resharding over it with redis-cli --cluster (issues 35 and 36). include()d
# from tests/CMakeLists.txt.
rbkv_server_test(integration_cluster_migrate integration/test_cluster_migrate.c 600 integration)
