# The docs check (tests/docs/check_commands.sh): every command of the built server has a heading in
# docs/commands.md and every setting a row in docs/operations.md, and the other way round; every
# relative link in the docs leads somewhere. Label `docs`, part of `make test`. include()d from
# tests/CMakeLists.txt, so relative paths start in tests/.
add_test(NAME docs_check
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_commands.sh $<TARGET_FILE:rbkv-server>
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(docs_check PROPERTIES LABELS docs TIMEOUT 60 SKIP_RETURN_CODE 77)

# docs/internals.md's layer drawing names every source file in its layer's row, and its Source map
# names only files that exist (tests/docs/check_internals.sh).
add_test(NAME docs_internals COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_internals.sh
                                     ${PROJECT_SOURCE_DIR})
set_tests_properties(docs_internals PROPERTIES LABELS docs TIMEOUT 60)

# docs/operations.md's list of every setting is the one the settings table generates
# (`rbkv-server --list-config-md`, tests/docs/check_config_doc.sh; --write regenerates it).
add_test(NAME docs_config_list
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_config_doc.sh $<TARGET_FILE:rbkv-server>
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(docs_config_list PROPERTIES LABELS docs TIMEOUT 60)

# bench/README.md's tables of the suite are the ones bench/results_md.sh prints from the committed
# bench/results/ CSVs (tests/docs/check_bench_results.sh).
add_test(NAME docs_bench_results COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_bench_results.sh
                                         ${PROJECT_SOURCE_DIR})
set_tests_properties(docs_bench_results PROPERTIES LABELS docs TIMEOUT 60)
