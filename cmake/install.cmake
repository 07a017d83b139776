# `cmake --install`: the kattn library, the headers of its API and a CMake package
# (kattnConfig.cmake, kattnConfigVersion.cmake, kattnTargets.cmake; namespace kattn::). The
# tuning tables are compiled into the library, so nothing else is needed at run time.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS kattn EXPORT kattnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The public headers: the API and what it names. detail/ (kernels, tile primitives, launches) is
# compiled into the library and not installed; harness/, io/, workload/ and simulation/ belong to
# kattn_tools, which is not installed either.
install(FILES src/kattn/attention.hpp src/kattn/workspace.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kattn)
install(DIRECTORY src/kattn/batch src/kattn/c_api src/kattn/core src/kattn/oracle src/kattn/problem
                  src/kattn/tuning
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kattn
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")

set(kattn_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/kattn)
install(EXPORT kattnTargets NAMESPACE kattn:: DESTINATION ${kattn_package_dir})
configure_package_config_file(cmake/kattnConfig.cmake.in ${PROJECT_BINARY_DIR}/kattnConfig.cmake
                              INSTALL_DESTINATION ${kattn_package_dir})
# 0.x: a new minor version may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kattnConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kattnConfig.cmake ${PROJECT_BINARY_DIR}/kattnConfigVersion.cmake
        DESTINATION ${kattn_package_dir})
