# The BLPOP hand-off driver of bench/list_vs_redis.sh (see handoff.c); include()d from
# bench/CMakeLists.txt. hiredis, as rbkv-cli uses it.
add_executable(handoff ${CMAKE_CURRENT_SOURCE_DIR}/handoff.c)
target_link_libraries(handoff PRIVATE PkgConfig::HIREDIS)
