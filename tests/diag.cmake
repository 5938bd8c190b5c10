# Tests of the diagnostics (#21): the latency histogram (server/base/histogram.c) and, end to end,
# SLOWLOG, LATENCY, INFO errorstats/latencystats/cpu (tests/integration/test_diag.c, compared with
# redis-server where it is installed). include()d from tests/CMakeLists.txt.
add_executable(test_histogram unit/test_histogram.c)
target_link_libraries(test_histogram PRIVATE rbkv_server_core)
add_test(NAME histogram COMMAND test_histogram)
set_tests_properties(histogram PROPERTIES LABELS unit TIMEOUT 60)

rbkv_server_test(integration_diag integration/test_diag.c 60 integration)
