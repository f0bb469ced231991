# Profile-guided optimization (GCC). A release build of wirc is a parser,
# a few passes over long vectors and text emitters: branchy code whose hot
# paths a profile lays out together. Built in two steps in one build
# directory (tools/quickstart.sh does both):
#
#   cmake --preset release -DWIRC_PGO=generate && cmake --build --preset release --target wirc
#   tools/pgo-train.sh build/release      # runs the training set, writes *.gcda
#   cmake --preset release -DWIRC_PGO=use && cmake --build --preset release
#
# The profile changes code layout and inlining only: outputs are the same
# bytes with or without it (the test suite runs on the optimized build).
# Sources edited after training keep compiling; their functions' stale
# profiles are dropped with a warning until the training runs again.
set(WIRC_PGO "" CACHE STRING "Profile-guided optimization: empty (off), generate or use")
set_property(CACHE WIRC_PGO PROPERTY STRINGS "" generate use)

if(WIRC_PGO AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "wirc: WIRC_PGO needs GCC (the compiler is ${CMAKE_CXX_COMPILER_ID}); "
                      "configure with -DWIRC_PGO= to build without a profile")
endif()
if(WIRC_PGO AND CMAKE_CXX_FLAGS MATCHES "-fsanitize")
  message(FATAL_ERROR "wirc: WIRC_PGO and sanitizer builds do not mix")
endif()

if(WIRC_PGO STREQUAL "generate")
  # Counters are updated atomically: the driver reads and prints on threads.
  add_compile_options(-fprofile-generate -fprofile-update=atomic)
  add_link_options(-fprofile-generate)
elseif(WIRC_PGO STREQUAL "use")
  # Code the training did not run is optimized as without a profile, not
  # for size (-fprofile-partial-training): the training set cannot reach
  # every emitter option and diagnostic.
  add_compile_options(-fprofile-use -fprofile-partial-training -Wno-missing-profile
                      -Wno-error=coverage-mismatch)
elseif(WIRC_PGO)
  message(FATAL_ERROR "wirc: WIRC_PGO must be empty, generate or use, not '${WIRC_PGO}'")
endif()
