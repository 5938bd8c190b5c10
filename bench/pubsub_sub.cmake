# The subscribers of bench/pubsub_vs_redis.sh (see pubsub_sub.c); include()d from
# bench/CMakeLists.txt. Plain sockets and poll(2), so it needs nothing beyond libc.
add_executable(pubsub_sub ${CMAKE_CURRENT_SOURCE_DIR}/pubsub_sub.c)
