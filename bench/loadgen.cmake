# The load generator of bench/run (see loadgen.c); include()d from bench/CMakeLists.txt.
# Plain sockets and poll(2), so it needs nothing beyond libc.
add_executable(loadgen ${CMAKE_CURRENT_SOURCE_DIR}/loadgen.c)
