# mfactl, the operator's command-line tool: built by SwiftPM from its own
# package (Tools/mfactl, which depends on this one by path and on
# swift-argument-parser), then installed next to the library with its man
# page, generated from its --help.
#
# MFA_MFACTL_CONFIGURATION (a cache variable; the environment variable of
# that name, when set at configure time, overrides it): release (default)
# or debug. A debug build costs about a third of a release build;
# scripts/test.sh uses it.
get_filename_component(MFA_SWIFT_BIN ${CMAKE_Swift_COMPILER} DIRECTORY)
find_program(MFA_SWIFT swift HINTS ${MFA_SWIFT_BIN} PATHS /opt/swift/usr/bin REQUIRED)
set(MFA_MFACTL_CONFIGURATION release CACHE STRING "mfactl build: release or debug")
if(DEFINED ENV{MFA_MFACTL_CONFIGURATION})
  set(MFA_MFACTL_CONFIGURATION $ENV{MFA_MFACTL_CONFIGURATION} CACHE STRING "mfactl build: release or debug" FORCE)
endif()
set_property(CACHE MFA_MFACTL_CONFIGURATION PROPERTY STRINGS release debug)
if(NOT MFA_MFACTL_CONFIGURATION MATCHES "^(release|debug)$")
  message(FATAL_ERROR "MFA_MFACTL_CONFIGURATION must be release or debug")
endif()

set(MFA_MFACTL_SCRATCH ${PROJECT_BINARY_DIR}/mfactl-build)
set(MFA_MFACTL ${PROJECT_BINARY_DIR}/mfactl)
set(MFA_MFACTL_MAN ${PROJECT_BINARY_DIR}/mfactl.1)
file(GLOB_RECURSE MFA_MFACTL_SOURCES CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/Tools/mfactl/Sources/*.swift ${PROJECT_SOURCE_DIR}/Sources/MFA/*.swift
  ${PROJECT_SOURCE_DIR}/Sources/CXML2/*.c ${PROJECT_SOURCE_DIR}/Sources/CXML2/include/*.h)
add_custom_command(OUTPUT ${MFA_MFACTL} ${MFA_MFACTL_MAN}
  COMMAND ${MFA_SWIFT} build -c ${MFA_MFACTL_CONFIGURATION} --static-swift-stdlib
          --package-path ${PROJECT_SOURCE_DIR}/Tools/mfactl --scratch-path ${MFA_MFACTL_SCRATCH}
  COMMAND ${CMAKE_COMMAND} -E copy ${MFA_MFACTL_SCRATCH}/${MFA_MFACTL_CONFIGURATION}/mfactl ${MFA_MFACTL}
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/gen_manpage.py ${MFA_MFACTL} ${MFA_MFACTL_MAN}
  DEPENDS ${MFA_MFACTL_SOURCES} ${PROJECT_SOURCE_DIR}/Tools/mfactl/Package.swift
          ${PROJECT_SOURCE_DIR}/Package.swift ${PROJECT_SOURCE_DIR}/scripts/gen_manpage.py
  COMMENT "Building mfactl (${MFA_MFACTL_CONFIGURATION}) with SwiftPM, and its man page"
  USES_TERMINAL)
add_custom_target(mfactl_tool ALL DEPENDS ${MFA_MFACTL} ${MFA_MFACTL_MAN})

install(PROGRAMS ${MFA_MFACTL} DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT mfactl)
install(FILES ${MFA_MFACTL_MAN} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT mfactl)

if(MFA_BUILD_TESTS)
  # Installed: the program runs from the prefix without the Swift toolchain's
  # libraries, and its man page is there.
  add_test(NAME mfactl_install
    COMMAND ${PROJECT_SOURCE_DIR}/Tests/mfactl/check_install.sh ${PROJECT_BINARY_DIR})
  # A setgid copy ignores MFA_STORE and MFA_MASTER_KEY (Tests/c/check_secure_execution.sh).
  add_test(NAME mfactl_secure_execution
    COMMAND ${PROJECT_SOURCE_DIR}/Tests/c/check_secure_execution.sh mfactl ${MFA_MFACTL})
endif()
