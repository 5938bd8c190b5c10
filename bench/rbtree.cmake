# The red-black tree against glibc's tsearch family; include()d from bench/CMakeLists.txt.
# A program, not a test: run ./build/bench/bench_rbtree (see bench/README.md, "The tree").
add_executable(bench_rbtree bench_rbtree.c)
target_link_libraries(bench_rbtree PRIVATE rbtree)
