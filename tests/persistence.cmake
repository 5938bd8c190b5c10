# Tests of snapshots (server/persist/snapshot.[ch], server/commands/cmd_persist.c). include()d from
# tests/CMakeLists.txt after integration.cmake (fragments are included in name order), so
# relative paths start in tests/ and rbkv_harness exists.

# The format: round trips, every byte of a small file flipped, every truncation; and the
# keyspace's bulk build at every size up to 520 keys. Under a second at -O2, a few under ASan.
add_executable(test_snapshot unit/test_snapshot.c)
target_link_libraries(test_snapshot PRIVATE rbkv_server_core)
foreach(part crc bulk roundtrip maps lists badmaps corrupt save repl functions)
  add_test(NAME snapshot_${part} COMMAND test_snapshot ${part})
  set_tests_properties(snapshot_${part} PROPERTIES LABELS unit TIMEOUT 60)
endforeach()

# End-to-end: restarts on the same dir, BGSAVE under writes, kill -9 during BGSAVE, MISCONF.
rbkv_server_test(integration_persistence integration/test_persistence.c 120 integration)

# A really full disk (a 4 MB tmpfs as the server's dir): MISCONF, nothing acknowledged that is not
# in the log, the saved snapshot untouched, recovery once space is freed. Needs root to mount;
# reports SKIP (77) otherwise.
rbkv_server_test(integration_disk_full integration/test_disk_full.c 120 integration)
set_tests_properties(integration_disk_full PROPERTIES SKIP_RETURN_CODE 77)
