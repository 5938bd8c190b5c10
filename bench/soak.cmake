# The soak test (bench/soak.c, run by bench/soak.sh): mixed traffic with random disconnects against
# one server, checked against a model. include()d from bench/CMakeLists.txt.
add_executable(soak ${CMAKE_CURRENT_SOURCE_DIR}/soak.c)
target_link_libraries(soak PRIVATE PkgConfig::HIREDIS Threads::Threads)

# A 15-second soak in every `make test` (bench/ is built unless RBKV_BENCH=OFF): 8 workers and 2
# slow readers, with an AOF restart at the end. Longer runs: bench/soak.sh MINUTES.
add_test(NAME soak_short
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/soak.sh --server $<TARGET_FILE:rbkv-server>
                 --soak $<TARGET_FILE:soak> --seconds 15 --aof)
set_tests_properties(soak_short PROPERTIES LABELS "integration;soak" TIMEOUT 120
                     SKIP_RETURN_CODE 77)
