# SPDX-License-Identifier: GPL-2.0-or-later
# cmake/aarch64-linux-gnu.cmake — cross-build pagelab for an arm64 QEMU guest.
#
#   cmake -S . -B build-static-arm64 -DPAGELAB_STATIC=ON \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#
# Debian's cross compiler (gcc-aarch64-linux-gnu) and the arm64 static libraries from
# the foreign architecture (dpkg --add-architecture arm64; libcgroup-dev:arm64,
# libjansson-dev:arm64, libseccomp-dev:arm64, libtracefs-dev:arm64,
# libtraceevent-dev:arm64 — all Multi-Arch: same, so they sit beside the amd64 ones).
# GSL (the stall quantiles of the tracepoints, compare) comes from a private sysroot:
# libgsl-dev is not Multi-Arch, so guest/vm-sysroot unpacks libgsl-dev:arm64 into the
# cache instead of installing it, and this file runs it once per configure (set
# PAGELAB_ARM64_SYSROOT to a pkg-config directory to use another, or to OFF for none: the
# build then compiles tracing and compare's statistics out). pkg-config is this host's,
# pointed at the arm64 .pc files only, so no amd64 library can be picked up by mistake.
# `pagelab vm --arch arm64` configures this build itself (harness/vm/targets.c:
# tree_build).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(_pagelab_pc "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")

# The sysroot: found once and kept in the cache; a try_compile project reads this file
# too and needs no libraries.
get_property(_pagelab_try GLOBAL PROPERTY IN_TRY_COMPILE)
if(NOT _pagelab_try)
  set(PAGELAB_ARM64_SYSROOT "" CACHE STRING
      "pkg-config directory of the arm64 packages unpacked by guest/vm-sysroot (OFF: none)")
  # CMake reads this file more than once per configure: one try is enough.
  get_property(_pagelab_tried GLOBAL PROPERTY PAGELAB_ARM64_SYSROOT_TRIED)
  if(NOT _pagelab_tried AND NOT PAGELAB_ARM64_SYSROOT STREQUAL "OFF"
     AND NOT IS_DIRECTORY "${PAGELAB_ARM64_SYSROOT}")
    set_property(GLOBAL PROPERTY PAGELAB_ARM64_SYSROOT_TRIED TRUE)
    execute_process(COMMAND "${CMAKE_CURRENT_LIST_DIR}/../guest/vm-sysroot"
                    OUTPUT_VARIABLE _pagelab_sysroot OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE _pagelab_rc)
    if(_pagelab_rc EQUAL 0 AND IS_DIRECTORY "${_pagelab_sysroot}")
      set(PAGELAB_ARM64_SYSROOT "${_pagelab_sysroot}" CACHE STRING
          "pkg-config directory of the arm64 packages unpacked by guest/vm-sysroot (OFF: none)" FORCE)
    else()
      message(WARNING "guest/vm-sysroot failed (${_pagelab_rc}): no GSL for arm64, so no "
                      "tracepoints in the arm64 guest (harness/sample/trace/trace-none.c)")
    endif()
  endif()
  if(IS_DIRECTORY "${PAGELAB_ARM64_SYSROOT}")
    set(_pagelab_pc "${PAGELAB_ARM64_SYSROOT}:${_pagelab_pc}")
    # Its libraries lie outside the find roots above: add the unpacked tree.
    get_filename_component(_pagelab_root "${PAGELAB_ARM64_SYSROOT}/.." ABSOLUTE)
    list(APPEND CMAKE_FIND_ROOT_PATH "${_pagelab_root}")
  endif()
  # Not in a try_compile: it runs in this same process, and its read of this file
  # would take the sysroot out of the environment again.
  set(ENV{PKG_CONFIG_LIBDIR} "${_pagelab_pc}")
  set(ENV{PKG_CONFIG_PATH} "")
endif()
