# Tests of what reads see of a db with keys past their deadline (server/data/live.[ch]) against a
# brute-force model. include()d from tests/CMakeLists.txt, so relative paths start in tests/.
# SEED=<n> in the environment replays a run; about 1 s at -O2.
add_executable(test_live unit/test_live.c)
target_link_libraries(test_live PRIVATE rbkv_server_core)
add_test(NAME expiry_live COMMAND test_live)
set_tests_properties(expiry_live PROPERTIES LABELS unit TIMEOUT 300)
