# The cache workload of bench/evict_vs_redis.sh (see evict_zipf.c); include()d from
# bench/CMakeLists.txt.
add_executable(evict_zipf ${CMAKE_CURRENT_SOURCE_DIR}/evict_zipf.c)
target_link_libraries(evict_zipf PRIVATE PkgConfig::HIREDIS m)
