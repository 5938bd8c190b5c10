# The RESP parser's benchmark against hiredis's reader (see bench_resp.c). include()d from
# bench/CMakeLists.txt. Run: build/bench/bench_resp [requests] [read size] [runs]
add_executable(bench_resp ${CMAKE_CURRENT_SOURCE_DIR}/bench_resp.c)
target_link_libraries(bench_resp PRIVATE resp PkgConfig::HIREDIS)
