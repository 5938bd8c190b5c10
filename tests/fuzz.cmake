# Fuzz targets. include()d from tests/CMakeLists.txt, so relative paths start in tests/.
#
# Convention: tests/fuzz/fuzz_<name>.c defines LLVMFuzzerTestOneInput, and tests/fuzz/corpus/<name>/
# holds its seed corpus (and the regression inputs of every crash found); an optional
# tests/fuzz/<name>.dict is a libFuzzer dictionary. A new target only needs those files and, if it
# uses project libraries, a line in the table below.
#
# RBKV_FUZZ=ON (CC=clang, `make fuzz`): each target is the libFuzzer executable fuzz_<name>, built
#   with -fsanitize=fuzzer,address,undefined, run by scripts/fuzz.sh; replaying its corpus is a
#   test labelled `fuzz`. The sources of the libraries it uses are compiled with the same flags
#   (once, below, shared by the targets), so the fuzzer sees coverage inside them and nothing else
#   in the tree changes.
# RBKV_FUZZ=OFF (any compiler): each target is linked with fuzz/replay_main.c as replay_<name>, and
#   replaying its corpus is an ordinary `unit` test, so `make test` and `make test-asan` run it.

# Project libraries each target uses, as RBKV_FUZZ_LIBS_<name>, extra sources it is built with
# (of tests/fuzz/, or one file of a library it needs alone), as RBKV_FUZZ_SOURCES_<name>, and
# the folders of their headers, as RBKV_FUZZ_INCLUDES_<name>. The server targets run the real
# server in-process through fuzz/harness.c (what it sets up and which commands it refuses:
# fuzz/harness.h).
set(RBKV_FUZZ_LIBS_resp_parser resp)
set(RBKV_FUZZ_LIBS_resp_reply resp)
# cmsgpack and struct live in rbkv_scripting; from the archive replay_cmsgpack takes only them.
set(RBKV_FUZZ_LIBS_cmsgpack rbkv_scripting rbkv_core rbkv_persist rbkv_data rbkv_base rbtree resp)
foreach(name commands snapshot aof config_file acl_file hll)
  set(RBKV_FUZZ_LIBS_${name} rbkv_commands rbkv_cluster rbkv_replication rbkv_scripting rbkv_core rbkv_persist
                            rbkv_data rbkv_base rbtree resp)
  set(RBKV_FUZZ_SOURCES_${name} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/harness.c)
endforeach()
# The replica's reader alone: bytes in, lines and payload out (no server state); the stream after
# it through proto's parser.
set(RBKV_FUZZ_LIBS_repl_reader rbkv_base resp)
set(RBKV_FUZZ_SOURCES_repl_reader ${PROJECT_SOURCE_DIR}/server/replication/repl_reader.c)
set(RBKV_FUZZ_INCLUDES_repl_reader ${PROJECT_SOURCE_DIR}/server/replication)
# Redis's RDB value format alone (RESTORE's body reader, less the trailer's CRC): persist's codec
# files on the data layer.
set(RBKV_FUZZ_LIBS_dump_payload rbkv_data rbkv_base rbtree resp)
set(RBKV_FUZZ_SOURCES_dump_payload ${PROJECT_SOURCE_DIR}/server/persist/rdb_value.c
    ${PROJECT_SOURCE_DIR}/server/persist/rdb_stream.c
    ${PROJECT_SOURCE_DIR}/server/persist/rdb_blobs.c ${PROJECT_SOURCE_DIR}/server/persist/rdb_io.c
    ${PROJECT_SOURCE_DIR}/server/persist/lzf.c)
set(RBKV_FUZZ_INCLUDES_dump_payload ${PROJECT_SOURCE_DIR}/server/persist)
# Redis's RDB file as start-up reads it: the file codec, the value codec under it, and snapshot.c
# for the CRC-64 and the function libraries' hand-over, on the data layer.
set(RBKV_FUZZ_LIBS_rdb_file rbkv_data rbkv_base rbtree resp)
set(RBKV_FUZZ_SOURCES_rdb_file ${PROJECT_SOURCE_DIR}/server/persist/rdb_file.c
    ${PROJECT_SOURCE_DIR}/server/persist/snapshot.c ${RBKV_FUZZ_SOURCES_dump_payload})
set(RBKV_FUZZ_INCLUDES_rdb_file ${PROJECT_SOURCE_DIR}/server/persist)
# The cluster bus's codec alone: bytes in, framed and decoded messages out (no server state).
set(RBKV_FUZZ_SOURCES_cluster_bus ${PROJECT_SOURCE_DIR}/server/cluster/cluster_msg.c)
set(RBKV_FUZZ_INCLUDES_cluster_bus ${PROJECT_SOURCE_DIR}/server/cluster)
# rbkv-cli's load and range readers (client/ less main.c), on a socketpair the target fills.
set(RBKV_FUZZ_LIBS_cli rbkv_cli)
# The TLS layer alone, on a context of its own (no server started).
set(RBKV_FUZZ_LIBS_tls_handshake rbkv_commands rbkv_cluster rbkv_replication rbkv_scripting rbkv_core
                                 rbkv_persist rbkv_data rbkv_base rbtree resp)

set(RBKV_FUZZ_FLAGS -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
if(RBKV_FUZZ AND NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "RBKV_FUZZ=ON needs clang (configure with CC=clang)")
endif()

# RBKV_FUZZ=ON: a project library's sources are compiled once with the fuzz flags, as the object
# library fuzz_objects_<lib> (its own include path, its dependencies' usage requirements), whose
# objects every target using the library links: the server is compiled once, not once a target.
function(rbkv_fuzz_objects lib)
  if(TARGET fuzz_objects_${lib})
    return()
  endif()
  get_target_property(lib_dir ${lib} SOURCE_DIR)
  get_target_property(lib_sources ${lib} SOURCES)
  set(sources)
  foreach(s ${lib_sources})
    if(NOT IS_ABSOLUTE ${s})
      set(s ${lib_dir}/${s})
    endif()
    list(APPEND sources ${s})
  endforeach()
  add_library(fuzz_objects_${lib} OBJECT ${sources})
  target_include_directories(fuzz_objects_${lib} PRIVATE $<TARGET_PROPERTY:${lib},INCLUDE_DIRECTORIES>)
  get_target_property(lib_deps ${lib} LINK_LIBRARIES)
  if(lib_deps)
    target_link_libraries(fuzz_objects_${lib} PRIVATE ${lib_deps})
  endif()
  target_compile_options(fuzz_objects_${lib} PRIVATE ${RBKV_FUZZ_FLAGS})
endfunction()

file(GLOB RBKV_FUZZ_TARGETS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_*.c)
foreach(source ${RBKV_FUZZ_TARGETS})
  get_filename_component(exe ${source} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" name ${exe})
  set(corpus ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${name})
  if(RBKV_FUZZ)
    add_executable(${exe} ${source} ${RBKV_FUZZ_SOURCES_${name}})
    target_include_directories(${exe} PRIVATE ${RBKV_FUZZ_INCLUDES_${name}})
    foreach(lib ${RBKV_FUZZ_LIBS_${name}})
      rbkv_fuzz_objects(${lib})
      target_sources(${exe} PRIVATE $<TARGET_OBJECTS:fuzz_objects_${lib}>)
      target_include_directories(${exe} PRIVATE $<TARGET_PROPERTY:${lib},INTERFACE_INCLUDE_DIRECTORIES>)
      get_target_property(lib_deps ${lib} LINK_LIBRARIES)
      if(lib_deps)
        target_link_libraries(${exe} PRIVATE ${lib_deps})
      endif()
    endforeach()
    target_compile_options(${exe} PRIVATE ${RBKV_FUZZ_FLAGS})
    target_link_options(${exe} PRIVATE ${RBKV_FUZZ_FLAGS})
    # -runs=0 executes every corpus input once and writes nothing.
    add_test(NAME fuzz_corpus_${name} COMMAND ${exe} -runs=0 ${corpus})
    set_tests_properties(fuzz_corpus_${name} PROPERTIES LABELS fuzz TIMEOUT 600)
  else()
    add_executable(replay_${name} ${source} ${RBKV_FUZZ_SOURCES_${name}}
                   ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/replay_main.c)
    target_include_directories(replay_${name} PRIVATE ${RBKV_FUZZ_INCLUDES_${name}})
    target_link_libraries(replay_${name} PRIVATE ${RBKV_FUZZ_LIBS_${name}})
    add_test(NAME fuzz_corpus_${name} COMMAND replay_${name} ${corpus})
    set_tests_properties(fuzz_corpus_${name} PROPERTIES LABELS unit TIMEOUT 600)
  endif()
endforeach()
