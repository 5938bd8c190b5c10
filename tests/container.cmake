# The container test (issue #9): builds the image from the Dockerfile with podman and checks it from the
# host (tests/container/test_container.sh says what). Label `container`, left out of `make test`
# (`-LE 'container|fuzz'`) because a first build takes minutes; `make test-container` and CI run it.
# include()d from tests/CMakeLists.txt, so relative paths start in tests/.
add_test(NAME container_image
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/container/test_container.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(container_image PROPERTIES LABELS container TIMEOUT 1800 RUN_SERIAL ON)
