# SPDX-License-Identifier: GPL-2.0-or-later
# cmake/commit.cmake — which tree a build is of, asked at every build, not
# once at configure time: a build directory kept across `git pull` or an
# edit would otherwise name the commit it was configured at, and every
# result it writes (harness.commit) would say so too.
#
#   cmake -DSRC=<source dir> -DOUT=<build>/gen/commit.c -P cmake/commit.cmake
#
# Writes OUT, a C file defining what harness/run/commit.h declares, and only
# when its text changes (so an unchanged tree recompiles nothing):
#   run_commit    the HEAD commit, 12 hex digits; "unknown" when SRC is not
#                 the top of a git work tree (a tarball, no git)
#   run_modified  1 when a tracked file differed from HEAD, 0 when none did,
#                 -1 when unknown
# Untracked files (results/, a build directory) do not count.
if(NOT SRC OR NOT OUT)
  message(FATAL_ERROR "commit.cmake: SRC and OUT must be given")
endif()
set(commit "unknown")
set(modified -1)
find_program(GIT git)
if(GIT)
  execute_process(COMMAND ${GIT} rev-parse --show-toplevel
                  WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE top
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE r)
  get_filename_component(src_real "${SRC}" REALPATH)
  if(r EQUAL 0 AND top)
    get_filename_component(top_real "${top}" REALPATH)
  endif()
  # Only SRC's own repository: a tarball unpacked inside another checkout
  # is not that checkout's HEAD.
  if(r EQUAL 0 AND top_real STREQUAL src_real)
    execute_process(COMMAND ${GIT} rev-parse --short=12 HEAD
                    WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE head
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE r)
    if(r EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
      set(commit "${head}")
      execute_process(COMMAND ${GIT} status --porcelain --untracked-files=no
                      WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE st
                      ERROR_QUIET RESULT_VARIABLE r)
      if(r EQUAL 0)
        if(st STREQUAL "")
          set(modified 0)
        else()
          set(modified 1)
        endif()
      endif()
    endif()
  endif()
endif()
set(text "/* Written by cmake/commit.cmake at each build. */\n#include \"run/commit.h\"\n\nconst char run_commit[] = \"${commit}\";\nconst int run_modified = ${modified};\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
