# Tests of integer parsing and integer text (proto/resp_num.c). include()d from
# tests/CMakeLists.txt, so relative paths start in tests/.

# resp_format_ll against snprintf's "%lld"; SEED=<n> replays the random part.
add_executable(test_numparse unit/test_numparse.c)
target_link_libraries(test_numparse PRIVATE resp)
add_test(NAME numparse COMMAND test_numparse)
set_tests_properties(numparse PROPERTIES LABELS unit TIMEOUT 60)
