# wirc_compile(): compiles an Inductor graph with wirc at build time.
#
#   wirc_compile(TARGET <name>
#                GRAPH <graph.json>
#                EMIT <emitter>
#                OUTPUT <file>
#                [OPTIONS <wirc compile option>...]
#                [LIBRARY SHARED|STATIC|MODULE])
#
# Adds a build rule that runs `wirc compile <graph> --emit=<emitter> -o <file>
# <options>` whenever the graph or the wirc executable changes. A relative
# GRAPH is relative to the current source directory, a relative OUTPUT to the
# current binary directory. Without LIBRARY, <name> is a custom target, part of
# the default build, that produces the file. With LIBRARY (EMIT cpp only),
# <name> is a library of that type built from the emitted C++ wrapper against
# wirc::runtime and the CUDA driver (CUDA::cuda_driver, from
# find_package(CUDAToolkit), which must succeed). Either way the target's
# WIRC_OUTPUT property holds the output's absolute path.
#
# Shipped with wirc's package: find_package(wirc) includes it. See
# docs/library.md.
include_guard(GLOBAL)

function(wirc_compile)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;GRAPH;EMIT;OUTPUT;LIBRARY" "OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "wirc_compile: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  foreach(keyword IN ITEMS TARGET GRAPH EMIT OUTPUT)
    if(NOT arg_${keyword})
      message(FATAL_ERROR "wirc_compile: ${keyword} is required")
    endif()
  endforeach()
  if(TARGET "${arg_TARGET}")
    message(FATAL_ERROR "wirc_compile: target '${arg_TARGET}' already exists")
  endif()
  if(NOT TARGET wirc::driver)
    message(FATAL_ERROR "wirc_compile: no wirc executable (target wirc::driver); "
                        "call find_package(wirc) first")
  endif()
  if(arg_LIBRARY)
    if(NOT arg_EMIT STREQUAL "cpp")
      message(FATAL_ERROR "wirc_compile: LIBRARY needs EMIT cpp, not '${arg_EMIT}'")
    endif()
    if(NOT arg_LIBRARY MATCHES "^(SHARED|STATIC|MODULE)$")
      message(FATAL_ERROR "wirc_compile: LIBRARY must be SHARED, STATIC or MODULE, "
                          "not '${arg_LIBRARY}'")
    endif()
    if(NOT TARGET CUDA::cuda_driver)
      find_package(CUDAToolkit QUIET)
    endif()
    if(NOT TARGET CUDA::cuda_driver)
      message(FATAL_ERROR "wirc_compile: LIBRARY needs the CUDA toolkit, and "
                          "find_package(CUDAToolkit) found none (set CUDAToolkit_ROOT)")
    endif()
  endif()

  cmake_path(ABSOLUTE_PATH arg_GRAPH BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE
             OUTPUT_VARIABLE graph)
  cmake_path(ABSOLUTE_PATH arg_OUTPUT BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE
             OUTPUT_VARIABLE output)
  cmake_path(GET output PARENT_PATH outputDir)
  # wirc writes the output atomically: a failed compile leaves no stale file
  # behind for the next build to mistake for up to date.
  add_custom_command(OUTPUT "${output}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${outputDir}"
    COMMAND "$<TARGET_FILE:wirc::driver>" compile "${graph}" "--emit=${arg_EMIT}" -o "${output}" ${arg_OPTIONS}
    DEPENDS "${graph}" "$<TARGET_FILE:wirc::driver>"
    COMMENT "wirc: compiling ${arg_GRAPH} (--emit=${arg_EMIT})"
    VERBATIM)

  if(arg_LIBRARY)
    add_library("${arg_TARGET}" ${arg_LIBRARY} "${output}")
    target_compile_features("${arg_TARGET}" PRIVATE cxx_std_17)
    target_link_libraries("${arg_TARGET}" PRIVATE wirc::runtime CUDA::cuda_driver)
  else()
    add_custom_target("${arg_TARGET}" ALL DEPENDS "${output}")
  endif()
  set_target_properties("${arg_TARGET}" PROPERTIES WIRC_OUTPUT "${output}")
endfunction()
