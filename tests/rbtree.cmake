# Tests of the red-black tree (server/rbtree/rbtree.[ch], rbtree_augmented.h, rbtree_order.h).
# include()d from tests/CMakeLists.txt, so relative paths start in tests/.
#
# Run as a script (cmake -DHEADER=... -DEXAMPLE=... -P rbtree.cmake), this file is instead the
# check that the usage examples in rbtree.h's top comment equal the code that
# test_rbtree_example.c compiles and runs; keeping both halves in one file keeps them in step.

if(CMAKE_SCRIPT_MODE_FILE)
  file(READ "${HEADER}" header_text)
  file(READ "${EXAMPLE}" example_text)
  foreach(name int-key string-key)
    string(REGEX MATCH "BEGIN EXAMPLE ${name}\n(.*)\n \\* END EXAMPLE ${name}" found "${header_text}")
    if(NOT found)
      message(FATAL_ERROR "${HEADER}: no example '${name}'")
    endif()
    # In the header each code line is " *" plus a four-space indent; blank lines are " *".
    string(REGEX REPLACE "\n \\*     " "\n" from_header "\n${CMAKE_MATCH_1}")
    string(REGEX REPLACE "\n \\*" "\n" from_header "${from_header}")

    string(REGEX MATCH "BEGIN EXAMPLE ${name} \\*/\n(.*)\n/\\* END EXAMPLE ${name}" found "${example_text}")
    if(NOT found)
      message(FATAL_ERROR "${EXAMPLE}: no example '${name}'")
    endif()
    set(from_test "\n${CMAKE_MATCH_1}")

    if(NOT from_header STREQUAL from_test)
      message(FATAL_ERROR "example '${name}' differs.\n--- ${HEADER}:${from_header}\n--- ${EXAMPLE}:${from_test}")
    endif()
    message(STATUS "example '${name}' matches")
  endforeach()
  return()
endif()

add_executable(test_rbtree unit/test_rbtree.c)
target_link_libraries(test_rbtree PRIVATE rbtree)
# One CTest test per part, so they run in parallel and a failure names its part.
# The longest, rbtree_order (10^6 operations), takes under 2 s at -O2 and about 6 s under ASan.
foreach(part edge check widths augment cut plain cached order order-cached)
  add_test(NAME rbtree_${part} COMMAND test_rbtree ${part})
  set_tests_properties(rbtree_${part} PROPERTIES LABELS unit TIMEOUT 300)
endforeach()

add_executable(test_rbtree_example unit/test_rbtree_example.c)
target_link_libraries(test_rbtree_example PRIVATE rbtree)
add_test(NAME rbtree_example COMMAND test_rbtree_example)
add_test(NAME rbtree_example_sync
         COMMAND ${CMAKE_COMMAND} -DHEADER=$<TARGET_PROPERTY:rbtree,SOURCE_DIR>/rbtree/rbtree.h
                 -DEXAMPLE=${CMAKE_CURRENT_SOURCE_DIR}/unit/test_rbtree_example.c
                 -P ${CMAKE_CURRENT_LIST_FILE})
set_tests_properties(rbtree_example rbtree_example_sync PROPERTIES LABELS unit TIMEOUT 60)
