# The partial sort of GEOSEARCH ... COUNT (server/base/psort.c) against qsort. include()d from
# tests/CMakeLists.txt, so relative paths start in tests/.
add_executable(test_psort unit/test_psort.c)
target_link_libraries(test_psort PRIVATE rbkv_base)
add_test(NAME psort COMMAND test_psort)
set_tests_properties(psort PROPERTIES LABELS unit TIMEOUT 60)
