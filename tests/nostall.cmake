# Big deletions that must not hold the loop (issue 38): KDELRANGE over a million keys (with or
# without deadlines) cut at once and freed in slices, and a mass expiry, each with a concurrent
# PING probe whose worst wait is bounded (not in slow builds); the data against a model, WATCH,
# and the log's replay of a cut. One program, four CTest tests that each run a part of its
# functions (named on the command line), so that each stays within its timeout on a loaded
# machine: a function added to main() must be named in one of the lists below.
add_executable(test_integration_nostall integration/test_nostall.c)
target_link_libraries(test_integration_nostall PRIVATE rbkv_harness)
# The deletions themselves, without persistence.
add_test(NAME integration_nostall COMMAND test_integration_nostall $<TARGET_FILE:rbkv-server>
         test_kdelrange_probe test_watch test_zrem_probe test_zrem_ranges test_zrem_half_probe
         test_zrem_pending test_zrem_pending_moved test_hdelrange_probe test_hdelrange_model test_model
         test_expiry_probe)
# KDELRANGE over a million keys with deadlines (the expiry tree rebuilt from the keys that stay).
add_test(NAME integration_nostall_deadlines COMMAND test_integration_nostall
         $<TARGET_FILE:rbkv-server> test_kdelttl_probe)
# What they send to the log and the replicas, and a rbkv-only command in the backlog.
add_test(NAME integration_nostall_propagate COMMAND test_integration_nostall
         $<TARGET_FILE:rbkv-server> test_aof_probe test_aof test_replica test_psync_after_cut)
# Cluster mode: the per-slot key sets.
add_test(NAME integration_nostall_cluster COMMAND test_integration_nostall
         $<TARGET_FILE:rbkv-server> test_cluster_probe)
set_tests_properties(integration_nostall integration_nostall_deadlines integration_nostall_propagate
                     integration_nostall_cluster
                     PROPERTIES LABELS integration TIMEOUT 300)
