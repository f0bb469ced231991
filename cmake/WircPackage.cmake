# What `cmake --install` puts under the prefix, and the CMake package that
# lets another project use it (docs/library.md):
#   bin/wirc                              the driver (target wirc::driver)
#   lib/libwirc.a                         the library (target wirc::wirc)
#   lib/libwirc-c.so                      the command line as a C library
#                                         (target wirc::c)
#   include/wirc/**, include/wirc-c/      its public headers, the runtime's too
#                                         (target wirc::runtime)
#   lib/cmake/wirc/wircConfig.cmake       find_package(wirc), with
#   lib/cmake/wirc/wircConfigVersion.cmake
#   lib/cmake/wirc/wircTargets*.cmake
#   lib/cmake/wirc/WircCompile.cmake      wirc_compile()
include(CMakePackageConfigHelpers)

set(WIRC_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/wirc" CACHE STRING
  "Where the CMake package files are installed, relative to the prefix")

install(TARGETS wirc wirc_lib wirc_c wirc_runtime EXPORT wircTargets
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/wirc" "${PROJECT_SOURCE_DIR}/include/wirc-c"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
install(EXPORT wircTargets NAMESPACE wirc:: DESTINATION "${WIRC_INSTALL_CMAKEDIR}")

configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/wircConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/wircConfig.cmake"
  INSTALL_DESTINATION "${WIRC_INSTALL_CMAKEDIR}")
# 0.x releases change the API between minor versions.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/wircConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/wircConfig.cmake"
  "${PROJECT_BINARY_DIR}/wircConfigVersion.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/WircCompile.cmake"
  DESTINATION "${WIRC_INSTALL_CMAKEDIR}")
