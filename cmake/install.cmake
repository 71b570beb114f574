# SPDX-License-Identifier: GPL-2.0-or-later
# cmake/install.cmake — `cmake --install` into FHS places (base/paths.h):
#
#   <prefix>/bin/pagelab
#   <prefix>/libexec/pagelab/      the workload programs (every target built into workloads/)
#   <prefix>/share/pagelab/        scenarios/, results/reference/, metrics/, guest/ (VM mode's guest tooling)
#   <prefix>/share/man/man1/pagelab.1   made by help2man from `pagelab --help` and `--version`
#
# The installed binary finds its data and workloads relative to itself, so
# `cmake --install build --prefix DIR` works for any DIR and the in-tree build
# keeps using the source tree.
include(GNUInstallDirs)

# (PAGELAB_DATA_REL and PAGELAB_LIBEXEC_REL, computed in CMakeLists.txt, are
# base/paths.c's.)

install(TARGETS pagelab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The workloads: whatever this build puts into workloads/ (no list to keep in step).
get_property(_pagelab_targets DIRECTORY workloads PROPERTY BUILDSYSTEM_TARGETS)
foreach(_t IN LISTS _pagelab_targets)
  get_target_property(_dir ${_t} RUNTIME_OUTPUT_DIRECTORY)
  if(_dir STREQUAL "${CMAKE_BINARY_DIR}/workloads")
    install(TARGETS ${_t} RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/pagelab)
  endif()
endforeach()

install(DIRECTORY scenarios DESTINATION ${CMAKE_INSTALL_DATADIR}/pagelab)
# The load clients' metrics tables (harness/launch/metrics.h: DATA/metrics/TOOL.json).
install(DIRECTORY metrics DESTINATION ${CMAKE_INSTALL_DATADIR}/pagelab FILES_MATCHING PATTERN "*.json")
install(DIRECTORY results/reference DESTINATION ${CMAKE_INSTALL_DATADIR}/pagelab/results)
# VM mode's guest tooling: the boot scripts and the guest's exit helper source.
install(PROGRAMS guest/vm-run guest/vm-kernel guest/vm-initramfs guest/vm-guest-init
        DESTINATION ${CMAKE_INSTALL_DATADIR}/pagelab/guest)
install(FILES guest/guest-exit.c DESTINATION ${CMAKE_INSTALL_DATADIR}/pagelab/guest)

# pagelab(1): the text of `pagelab --help` (cmd/main.c's usage text, the one copy)
# through help2man; harness/cmd/cli.md is the longer reference beside the code.
find_program(HELP2MAN help2man)
if(HELP2MAN AND CMAKE_CROSSCOMPILING)
  # help2man runs the binary: an arm64 guest's build (cmake/aarch64-linux-gnu.cmake)
  # cannot run here, and a guest needs no man page.
  message(STATUS "cross build: no pagelab.1 (help2man would run an ${CMAKE_SYSTEM_PROCESSOR} binary)")
elseif(HELP2MAN)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/pagelab.1
    COMMAND ${HELP2MAN} --no-info --section=1 --source=pagelab
            "--name=a reproducible memory-pressure lab for Linux"
            --include=${CMAKE_SOURCE_DIR}/cmake/pagelab.h2m
            --output=${CMAKE_BINARY_DIR}/pagelab.1 $<TARGET_FILE:pagelab>
    DEPENDS pagelab ${CMAKE_SOURCE_DIR}/cmake/pagelab.h2m
    COMMENT "pagelab.1 from pagelab --help (help2man)")
  add_custom_target(manpage ALL DEPENDS ${CMAKE_BINARY_DIR}/pagelab.1)
  install(FILES ${CMAKE_BINARY_DIR}/pagelab.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no pagelab.1 (apt-get install help2man)")
endif()
