# Finds wirc's dependencies. Every one of them is a Debian bookworm package;
# a missing one stops configuration with the package that provides it, so a
# fresh machine fails here rather than with a compiler error later.
# tools/install-deps.sh installs them all.

set(_wirc_missing "")
macro(wirc_require pkg debian)
  find_package(${pkg} ${ARGN} QUIET)
  if(NOT ${pkg}_FOUND)
    list(APPEND _wirc_missing "${pkg} (Debian package ${debian})")
  endif()
endmacro()

wirc_require(nlohmann_json nlohmann-json3-dev 3.10)
wirc_require(CLI11 libcli11-dev)
wirc_require(spdlog libspdlog-dev)
wirc_require(fmt libfmt-dev)
if(WIRC_BUILD_TESTS)
  wirc_require(Catch2 catch2 2)
endif()

if(_wirc_missing)
  list(JOIN _wirc_missing "\n  " _wirc_missing_text)
  message(FATAL_ERROR
    "wirc: missing dependencies:\n  ${_wirc_missing_text}\n"
    "Install them with: sudo tools/install-deps.sh")
endif()

# spdlog header-only on header-only fmt: the driver then loads neither shared
# library at start (spdlog's own header-only target links the shared fmt).
add_library(wirc_spdlog INTERFACE)
target_compile_definitions(wirc_spdlog INTERFACE SPDLOG_FMT_EXTERNAL)
target_include_directories(wirc_spdlog SYSTEM INTERFACE
  $<TARGET_PROPERTY:spdlog::spdlog_header_only,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(wirc_spdlog INTERFACE Threads::Threads fmt::fmt-header-only)

# The driver allocates millions of small objects and frees them in bulk
# between stages; jemalloc does that in about two thirds of glibc's time.
# Sanitizer builds keep the system allocator (they replace it themselves).
set(WIRC_ALLOCATOR "jemalloc" CACHE STRING "Allocator the wirc driver links: jemalloc or system")
set_property(CACHE WIRC_ALLOCATOR PROPERTY STRINGS jemalloc system)
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize")
  set(WIRC_ALLOCATOR "system")
endif()
if(WIRC_ALLOCATOR STREQUAL "jemalloc")
  find_library(WIRC_JEMALLOC_LIBRARY NAMES libjemalloc.a NO_CACHE)
  if(NOT WIRC_JEMALLOC_LIBRARY)
    message(FATAL_ERROR
      "wirc: missing dependency: jemalloc (Debian package libjemalloc-dev)\n"
      "Install it with: sudo tools/install-deps.sh, or configure with -DWIRC_ALLOCATOR=system")
  endif()
elseif(NOT WIRC_ALLOCATOR STREQUAL "system")
  message(FATAL_ERROR "wirc: WIRC_ALLOCATOR must be jemalloc or system, not '${WIRC_ALLOCATOR}'")
endif()

# Test tools: FileCheck, not and lit ship with llvm-14-tools (lit as Python
# sources inside the LLVM prefix, not as a command).
set(WIRC_LLVM_ROOT "/usr/lib/llvm-14" CACHE PATH "LLVM 14 install prefix (FileCheck, not, lit)")
if(WIRC_BUILD_TESTS)
  find_package(Python3 3.9 COMPONENTS Interpreter QUIET)
  find_program(WIRC_FILECHECK NAMES FileCheck FileCheck-14
    HINTS "${WIRC_LLVM_ROOT}/bin" NO_CACHE)
  find_program(WIRC_NOT NAMES not HINTS "${WIRC_LLVM_ROOT}/bin" NO_DEFAULT_PATH NO_CACHE)
  find_file(WIRC_LIT_PY lit.py
    HINTS "${WIRC_LLVM_ROOT}/build/utils/lit" NO_DEFAULT_PATH NO_CACHE)
  set(_wirc_missing "")
  if(NOT Python3_FOUND)
    list(APPEND _wirc_missing "python3 (Debian package python3)")
  endif()
  foreach(tool WIRC_FILECHECK WIRC_NOT WIRC_LIT_PY)
    if(NOT ${tool})
      list(APPEND _wirc_missing "${tool} (Debian package llvm-14-tools)")
    endif()
  endforeach()
  if(_wirc_missing)
    list(JOIN _wirc_missing "\n  " _wirc_missing_text)
    message(FATAL_ERROR
      "wirc: missing test tools:\n  ${_wirc_missing_text}\n"
      "Install them with: sudo tools/install-deps.sh, or configure with -DWIRC_BUILD_TESTS=OFF")
  endif()
endif()

# The CUDA toolkit is optional: without it wirc still builds and emits every
# target, but cannot assemble kernels to cubin.
set(WIRC_CUDA_ROOT "/usr/local/cuda" CACHE PATH "CUDA toolkit root")
find_program(WIRC_PTXAS ptxas HINTS "${WIRC_CUDA_ROOT}/bin" NO_CACHE)
find_path(WIRC_CUDA_INCLUDE cuda.h HINTS "${WIRC_CUDA_ROOT}/include" NO_CACHE)
if(WIRC_CUDA_INCLUDE)
  set(WIRC_HAVE_CUDA ON)
else()
  set(WIRC_HAVE_CUDA OFF)
endif()
# Kernel compilation (lib/cuda) loads nvJitLink, NVRTC and LLVM at run time;
# configuring needs only their headers, and LLVM's library path and version.
set(WIRC_HAVE_KERNEL_COMPILER OFF)
if(WIRC_HAVE_CUDA AND EXISTS "${WIRC_CUDA_INCLUDE}/nvJitLink.h"
   AND EXISTS "${WIRC_CUDA_INCLUDE}/nvrtc.h")
  set(WIRC_HAVE_KERNEL_COMPILER ON)
endif()
set(WIRC_HAVE_LLVM_NVPTX OFF)
find_program(WIRC_LLVM_CONFIG NAMES llvm-config llvm-config-14
  HINTS "${WIRC_LLVM_ROOT}/bin" NO_DEFAULT_PATH NO_CACHE)
if(WIRC_LLVM_CONFIG)
  execute_process(COMMAND "${WIRC_LLVM_CONFIG}" --version
    OUTPUT_VARIABLE WIRC_LLVM_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND "${WIRC_LLVM_CONFIG}" --libdir
    OUTPUT_VARIABLE _wirc_llvm_libdir OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND "${WIRC_LLVM_CONFIG}" --includedir
    OUTPUT_VARIABLE WIRC_LLVM_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REGEX MATCH "^[0-9]+" _wirc_llvm_major "${WIRC_LLVM_VERSION}")
  find_file(WIRC_LLVM_LIBRARY NAMES "libLLVM-${_wirc_llvm_major}.so.1" "libLLVM-${_wirc_llvm_major}.so"
    HINTS "${_wirc_llvm_libdir}" NO_DEFAULT_PATH NO_CACHE)
  if(_wirc_llvm_major STREQUAL "14" AND WIRC_LLVM_LIBRARY
     AND EXISTS "${WIRC_LLVM_INCLUDE}/llvm-c/TargetMachine.h")
    set(WIRC_HAVE_LLVM_NVPTX ON)
  endif()
endif()

function(wirc_print_feature_summary)
  message(STATUS "wirc ${PROJECT_VERSION}: build type ${CMAKE_BUILD_TYPE}")
  message(STATUS "  tests (unit + lit): ${WIRC_BUILD_TESTS}")
  message(STATUS "  driver allocator: ${WIRC_ALLOCATOR}")
  if(WIRC_HAVE_CUDA)
    message(STATUS "  CUDA toolkit: ${WIRC_CUDA_ROOT}")
  else()
    message(STATUS "  CUDA toolkit: not found under ${WIRC_CUDA_ROOT}; "
                   "kernel assembly to cubin is left out")
  endif()
  message(STATUS "  kernel compiler (nvJitLink, NVRTC): ${WIRC_HAVE_KERNEL_COMPILER}")
  if(WIRC_HAVE_LLVM_NVPTX)
    message(STATUS "  LLVM IR kernels: LLVM ${WIRC_LLVM_VERSION} (${WIRC_LLVM_LIBRARY})")
  else()
    message(STATUS "  LLVM IR kernels: OFF (needs llvm-14-dev under ${WIRC_LLVM_ROOT})")
  endif()
endfunction()
