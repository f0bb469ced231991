# The package test (ctest -R consumer): installs wirc from its build tree into
# a fresh prefix, builds test/consumer against it, and checks what the
# consumer's build produced and what its backend prints. Run by CTest as
#   cmake -DWIRC_BUILD_DIR=... -DWORK=... [...] -P RunConsumer.cmake
# with the variables test/CMakeLists.txt passes: the build to install, a
# scratch directory, and the compiler, flags and generator the consumer must
# share with that build (a sanitizer build's library needs its flags).
cmake_minimum_required(VERSION 3.25)

foreach(var IN ITEMS WIRC_BUILD_DIR WIRC_SOURCE_DIR WORK FILECHECK GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "RunConsumer.cmake: -D${var}=... is required")
  endif()
endforeach()

# Runs a command; stops the test with its output unless it exits with
# EXPECT_EXIT (default 0). OUTPUT_VARIABLE receives stdout.
function(run)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "EXPECT_EXIT;OUTPUT_VARIABLE;WORKING_DIRECTORY"
                        "COMMAND")
  if(NOT DEFINED arg_EXPECT_EXIT)
    set(arg_EXPECT_EXIT 0)
  endif()
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY "${WORK}")
  endif()
  list(JOIN arg_COMMAND " " shown)
  message(STATUS "$ ${shown}")
  execute_process(COMMAND ${arg_COMMAND} WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL arg_EXPECT_EXIT)
    message(FATAL_ERROR "exit code ${rc}, expected ${arg_EXPECT_EXIT}\n"
                        "stdout:\n${out}\nstderr:\n${err}")
  endif()
  if(arg_OUTPUT_VARIABLE)
    set(${arg_OUTPUT_VARIABLE} "${out}" PARENT_SCOPE)
    set(${arg_OUTPUT_VARIABLE}_ERR "${err}" PARENT_SCOPE)
  endif()
endfunction()

# FileChecks a file against the PREFIX lines of Checks.txt.
function(check file prefix)
  run(COMMAND "${FILECHECK}" "${CMAKE_CURRENT_LIST_DIR}/Checks.txt" --match-full-lines
              "--check-prefix=${prefix}" "--input-file=${file}")
endfunction()

function(check_text text prefix)
  file(WRITE "${WORK}/${prefix}.out" "${text}")
  check("${WORK}/${prefix}.out" ${prefix})
endfunction()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(prefix "${WORK}/prefix")
set(build "${WORK}/build")
# The consumer compiles copies of the samples, so that touching one to test
# rebuilds changes nothing in the source tree.
file(COPY "${WIRC_SOURCE_DIR}/samples/seed" "${WIRC_SOURCE_DIR}/samples/cpp"
     DESTINATION "${WORK}/samples")

# 1. Install.
run(COMMAND "${CMAKE_COMMAND}" --install "${WIRC_BUILD_DIR}" --prefix "${prefix}")
foreach(installed IN ITEMS bin/wirc lib/libwirc.a include/wirc/emit/Emitter.h
                           include/wirc/runtime/Runtime.h lib/cmake/wirc/wircConfig.cmake
                           lib/cmake/wirc/wircConfigVersion.cmake lib/cmake/wirc/WircCompile.cmake)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "the install has no ${installed}")
  endif()
endforeach()

# 2. Configure and build the consumer with the build's own toolchain.
set(configure_args
  -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
  "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}"
  "-DCMAKE_SHARED_LINKER_FLAGS=${SHARED_LINKER_FLAGS}"
  "-DCMAKE_PREFIX_PATH=${prefix}")
if(MAKE_PROGRAM)
  list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(CUDA_ROOT)
  list(APPEND configure_args "-DCUDAToolkit_ROOT=${CUDA_ROOT}")
else()
  list(APPEND configure_args "-DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON")
endif()
run(COMMAND "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}" -B "${build}" ${configure_args}
            "-DWIRC_SAMPLES_DIR=${WORK}/samples")
run(COMMAND "${CMAKE_COMMAND}" --build "${build}" --parallel 1 OUTPUT_VARIABLE log)
if(NOT log MATCHES "wirc: compiling")
  message(FATAL_ERROR "the consumer's build ran no wirc_compile() rule:\n${log}")
endif()

# 3. What the build produced.
check("${build}/generated/launches.txt" LAUNCHES)
check("${build}/generated/add_dynamic.txt" FX)
check("${build}/generated/add_dynamic.py" PYTHON)
if(CUDA_ROOT)
  if(NOT EXISTS "${build}/libadd_relu.so")
    message(FATAL_ERROR "wirc_compile(LIBRARY SHARED) built no libadd_relu.so")
  endif()
endif()

# 4. The backend on its own.
run(COMMAND "${build}/launch-grids" --list-emitters OUTPUT_VARIABLE out)
check_text("${out}" LIST)
run(COMMAND "${build}/launch-grids" "${WORK}/samples/seed/01-add.json" OUTPUT_VARIABLE out)
check_text("${out}" STATIC)
run(COMMAND "${build}/launch-grids" --line-kinds "${WORK}/samples/seed/06-dynamic-2d.json"
    OUTPUT_VARIABLE out)
check_text("${out}" KINDS)
run(COMMAND "${build}/launch-grids" --emit=fx-annotated "${WORK}/samples/seed/05-dynamic-1d.json"
    OUTPUT_VARIABLE out)
check_text("${out}" ANNOTATED)
run(COMMAND "${build}/launch-grids" --emit=nope "${WORK}/samples/seed/01-add.json"
    EXPECT_EXIT 2 OUTPUT_VARIABLE out)
if(NOT out_ERR STREQUAL "wirc: error: no emitter is registered as 'nope'\n")
  message(FATAL_ERROR "unexpected diagnostic for an unknown emitter: ${out_ERR}")
endif()

# The installed C library prints what the installed executable prints.
run(COMMAND "${build}/capi-user" "${WORK}/samples/seed/05-dynamic-1d.json" OUTPUT_VARIABLE out)
run(COMMAND "${prefix}/bin/wirc" compile "${WORK}/samples/seed/05-dynamic-1d.json" --emit=fx
    OUTPUT_VARIABLE expected)
if(NOT out STREQUAL expected OR out STREQUAL "")
  message(FATAL_ERROR "capi-user printed:\n${out}\nwirc compile printed:\n${expected}")
endif()

# 5. Rebuilds: nothing to do when nothing changed; a changed graph reruns only
# the rules that read it.
run(COMMAND "${CMAKE_COMMAND}" --build "${build}" --parallel 1 OUTPUT_VARIABLE log)
if(log MATCHES "wirc: compiling|launch-grids: ")
  message(FATAL_ERROR "a rebuild without changes reran a rule:\n${log}")
endif()
file(TOUCH "${WORK}/samples/seed/05-dynamic-1d.json")
run(COMMAND "${CMAKE_COMMAND}" --build "${build}" --parallel 1 OUTPUT_VARIABLE log)
string(REGEX MATCHALL "wirc: compiling [^\n]*" reran "${log}")
list(LENGTH reran count)
if(NOT count EQUAL 2 OR NOT log MATCHES "05-dynamic-1d.json \\(--emit=fx\\)"
   OR NOT log MATCHES "05-dynamic-1d.json \\(--emit=python\\)")
  message(FATAL_ERROR "touching 05-dynamic-1d.json should rerun its two rules:\n${log}")
endif()

# 6. `wirc compile --build`: its CMakeLists.txt builds the wrapper.
if(CUDA_ROOT)
  set(project "${WORK}/wrapper")
  file(MAKE_DIRECTORY "${project}")
  run(COMMAND "${prefix}/bin/wirc" compile "${WORK}/samples/cpp/add-relu-ptx.json" --emit=cpp
              --build -o "${project}/add_relu.cpp")
  run(COMMAND "${CMAKE_COMMAND}" -S "${project}" -B "${project}/build" ${configure_args})
  run(COMMAND "${CMAKE_COMMAND}" --build "${project}/build" --parallel 1)
  if(NOT EXISTS "${project}/build/libadd_relu.so")
    message(FATAL_ERROR "the --build project built no libadd_relu.so")
  endif()
endif()
# 7. Misuses of wirc_compile() stop configuration with a message; a graph
# wirc rejects fails the build with wirc's diagnostic and leaves no output.
set(misuse "${WORK}/misuse")
file(COPY "${WIRC_SOURCE_DIR}/test/lit/diagnostics/Inputs/negative-size.json"
     DESTINATION "${WORK}/samples")
foreach(case_message IN ITEMS
    "missing-graph|wirc_compile: GRAPH is required"
    "unexpected-argument|wirc_compile: unexpected arguments: GRAPHS"
    "taken-target|wirc_compile: target 't' already exists"
    "library-not-cpp|wirc_compile: LIBRARY needs EMIT cpp, not 'python'"
    "library-type|wirc_compile: LIBRARY must be SHARED, STATIC or MODULE, not 'DYNAMIC'"
    "library-no-cuda|wirc_compile: LIBRARY needs the CUDA toolkit")
  string(REPLACE "|" ";" case_message "${case_message}")
  list(GET case_message 0 case)
  list(GET case_message 1 expected)
  set(args ${configure_args})
  if(case STREQUAL "library-no-cuda")
    list(FILTER args EXCLUDE REGEX "CUDAToolkit")
    list(APPEND args "-DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON")
  endif()
  run(COMMAND "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/misuse" -B "${misuse}" ${args}
              "-DWIRC_SAMPLES_DIR=${WORK}/samples" "-DCASE=${case}"
      EXPECT_EXIT 1 OUTPUT_VARIABLE out)
  # CMake reflows long messages: compare with whitespace collapsed.
  string(REGEX REPLACE "[ \n]+" " " flat "${out_ERR}")
  string(FIND "${flat}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "case ${case}: expected '${expected}' in:\n${out_ERR}")
  endif()
endforeach()
run(COMMAND "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/misuse" -B "${misuse}"
            ${configure_args} "-DWIRC_SAMPLES_DIR=${WORK}/samples" -DCASE=bad-graph
            "-DWIRC_BAD_GRAPH=${WORK}/samples/negative-size.json")
run(COMMAND "${CMAKE_COMMAND}" --build "${misuse}" EXPECT_EXIT 1 OUTPUT_VARIABLE log)
if(NOT "${log}${log_ERR}" MATCHES "negative-size.json:29:16: error: size -4 is negative")
  message(FATAL_ERROR "the failed wirc_compile() rule did not show wirc's diagnostic:\n"
                      "${log}${log_ERR}")
endif()
if(EXISTS "${misuse}/t.txt")
  message(FATAL_ERROR "a failed wirc_compile() rule left ${misuse}/t.txt behind")
endif()

message(STATUS "consumer: all checks passed")
