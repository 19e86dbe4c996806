# One helper per target kind, in the spirit of absl_cc_library / rp_test.
#
#   rs_library(NAME store_segment SRCS a.cc b.cc DEPS rs::base rs::io)
#       -> static library rs_store_segment, alias rs::store_segment, include root src/.
#   rs_test(NAME commit_log_test SRCS commit_log_test.cc DEPS rs::store_commitlog LABELS unit)
#       -> gtest binary; every TEST becomes one CTest test carrying LABELS. A binary whose
#          tests start threads also carries `threads`: the target `threads_tests` depends
#          on it and the tsan preset runs it.
#   rs_bench(NAME commitlog_append SRCS commitlog_append.cc DEPS ...)
#   rs_fuzz(NAME message_record_fuzzer SRCS ... DEPS ...)

function(rs_library)
  cmake_parse_arguments(RS "" "NAME" "SRCS;DEPS;PUBLIC_DEPS" ${ARGN})
  set(target rs_${RS_NAME})
  if(RS_SRCS)
    add_library(${target} STATIC ${RS_SRCS})
    target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${target} PUBLIC ${RS_PUBLIC_DEPS} PRIVATE ${RS_DEPS})
    target_compile_options(${target} PRIVATE ${ROCKETSTORE_WARNINGS})
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${target} INTERFACE ${RS_PUBLIC_DEPS} ${RS_DEPS})
  endif()
  add_library(rs::${RS_NAME} ALIAS ${target})
endfunction()

function(rs_test)
  if(NOT ROCKETSTORE_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(RS "" "NAME;TIMEOUT" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${RS_NAME} ${RS_SRCS})
  target_link_libraries(${RS_NAME} PRIVATE ${RS_DEPS} rs::testing GTest::gmock GTest::gtest_main)
  target_compile_options(${RS_NAME} PRIVATE ${ROCKETSTORE_WARNINGS} ${ROCKETSTORE_TEST_CXX_FLAGS_LIST})
  if(NOT RS_TIMEOUT)
    set(RS_TIMEOUT 300)
  endif()
  if("threads" IN_LIST RS_LABELS)
    add_dependencies(threads_tests ${RS_NAME})
  endif()
  gtest_discover_tests(${RS_NAME}
    DISCOVERY_MODE PRE_TEST
    TEST_LIST ${RS_NAME}_TESTS
    PROPERTIES TIMEOUT ${RS_TIMEOUT}
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  # LABELS are set by a script CTest includes after the discovered tests: passed through
  # gtest_discover_tests' PROPERTIES, a list of two labels (`unit;threads`) is split into
  # property/value pairs by GoogleTestAddTests (CMake 3.25).
  set(labels_script "${CMAKE_CURRENT_BINARY_DIR}/${RS_NAME}_labels.cmake")
  file(WRITE "${labels_script}"
    "if(DEFINED ${RS_NAME}_TESTS)\n"
    "  set_tests_properties(\${${RS_NAME}_TESTS} PROPERTIES LABELS \"${RS_LABELS}\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_script}")
endfunction()

function(rs_bench)
  if(NOT ROCKETSTORE_BUILD_BENCH)
    return()
  endif()
  cmake_parse_arguments(RS "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${RS_NAME} ${RS_SRCS})
  target_link_libraries(${RS_NAME} PRIVATE ${RS_DEPS})
  target_include_directories(${RS_NAME} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(${RS_NAME} PRIVATE ${ROCKETSTORE_WARNINGS})
  set_target_properties(${RS_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
endfunction()

function(rs_fuzz)
  if(NOT ROCKETSTORE_BUILD_FUZZ)
    return()
  endif()
  cmake_parse_arguments(RS "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${RS_NAME} ${RS_SRCS})
  target_link_libraries(${RS_NAME} PRIVATE ${RS_DEPS})
  target_compile_options(${RS_NAME} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(${RS_NAME} PRIVATE -fsanitize=fuzzer,address,undefined)
  set_target_properties(${RS_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
  add_dependencies(fuzzers ${RS_NAME})
endfunction()
