# Memory per key with the cluster mode's per-slot key index on and off (slotindex_mem.c), for
# bench/slotindex_vs_redis.sh; include()d from bench/CMakeLists.txt.
add_executable(slotindex_mem ${CMAKE_CURRENT_SOURCE_DIR}/slotindex_mem.c)
target_link_libraries(slotindex_mem PRIVATE rbkv_data)
