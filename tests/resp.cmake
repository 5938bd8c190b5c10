# Tests of the RESP library (proto/). include()d from tests/CMakeLists.txt, so relative paths
# start in tests/.
#
# The unit tests compile proto/'s sources again against a counting allocator (RESP_MALLOC & co.,
# see proto/resp_alloc.h), so each test checks for leaks and can make any allocation fail.
# The fuzz target's corpus also runs as a test: see tests/fuzz.cmake.
add_library(resp_counted STATIC
  ${PROJECT_SOURCE_DIR}/proto/resp_num.c
  ${PROJECT_SOURCE_DIR}/proto/resp_parser.c
  ${PROJECT_SOURCE_DIR}/proto/resp_writer.c
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_resp_util.c)
target_include_directories(resp_counted PUBLIC ${PROJECT_SOURCE_DIR}/proto ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_compile_definitions(resp_counted PUBLIC
  RESP_MALLOC=resp_test_malloc RESP_REALLOC=resp_test_realloc RESP_FREE=resp_test_free)
target_link_libraries(resp_counted PUBLIC m)

foreach(name parser writer hiredis)
  add_executable(test_resp_${name} unit/test_resp_${name}.c)
  target_link_libraries(test_resp_${name} PRIVATE resp_counted)
  add_test(NAME resp_${name} COMMAND test_resp_${name})
  set_tests_properties(resp_${name} PROPERTIES LABELS unit TIMEOUT 300)
endforeach()
# hiredis's reader is the independent implementation the writer is checked against.
target_link_libraries(test_resp_hiredis PRIVATE PkgConfig::HIREDIS)
