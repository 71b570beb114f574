# SPDX-License-Identifier: GPL-2.0-or-later
# cmake/aarch64-linux-gnu.cmake — cross-build pagelab for an arm64 QEMU guest.
#
#   cmake -S . -B build-static-arm64 -DPAGELAB_STATIC=ON \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#
# Debian's cross compiler (gcc-aarch64-linux-gnu) and the arm64 static libraries from
# the foreign architecture (dpkg --add-architecture arm64; libcgroup-dev:arm64,
# libjansson-dev:arm64, libseccomp-dev:arm64 — all Multi-Arch: same, so they sit beside
# the amd64 ones). pkg-config is this host's, pointed at the arm64 .pc files only, so no
# amd64 library can be picked up by mistake. `pagelab vm --arch arm64` configures this
# build itself (harness/vm/vm.c: static_build).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
