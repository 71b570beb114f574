#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: any (files only: no cgroup, knob, container, guest or lasting process of this host's; scripts/test)
# Workloads parse argv through their declarations (workloads/decl/NAME.c), the
# rows the scenario parser types a [workload] section with: cachefill and allocs
# through wl_opt_match, goalloc (Go) through decl_gen.go, which the build writes
# from decl/goalloc.c (workloads/goalloc/decl2go.c).  So: each --help is the
# declaration's usage; each declared flag is taken (a bad value is refused naming
# the flag, never "unknown argument"); an undeclared one is one line, exit 2; and
# the argv `pagelab show` builds for every shipped scenario that runs them is
# taken by the workload itself (run at small sizes, outside any sandbox: a few
# MiB, files in a private directory).  No knob, no cgroup, no guest.

load helpers

setup() {
  tmp=$(mktemp -d)
  DECL2GO="$BUILD/decl2go"
  [ -x "$DECL2GO" ] || skip "no $DECL2GO (build pagelab first)"
}

teardown() {
  [ -z "${tmp:-}" ] || rm -rf "$tmp"
}

# programs: the workloads built here whose options this file checks.
programs() {
  echo cachefill allocs region
  [ ! -x "$BUILD/workloads/goalloc" ] || echo goalloc
}

@test "workloads: each --help is its declaration's usage (decl2go --usage)" {
  for p in $(programs); do
    diff -u <("$DECL2GO" --usage "$p") <("$BUILD/workloads/$p" --help)
  done
  # The declaration's rows are what --help lists: cachefill's by-hand --dir and --keep too.
  run "$BUILD/workloads/cachefill" --help
  assert_success
  [[ "$output" == "usage: cachefill --size V [--reads V] [--cold] [--stay] [--dir V] [--keep] [--event-fd N] [--ack-fd N]"* ]]
  run "$BUILD/workloads/allocs" --help
  [[ "$output" == *"--malloc-conf"*"--pressure"* ]]
}

@test "workloads: every declared flag is taken and typed by the workload; an undeclared one is one line, exit 2" {
  for p in cachefill allocs $([ ! -x "$BUILD/workloads/goalloc" ] || echo goalloc); do
    flags=$("$DECL2GO" --usage "$p" | sed -n 's/^  \(--[a-z-]*\) .*/\1/p')
    [ -n "$flags" ]
    for fl in $flags; do
      # A value no declared type takes but text: refused naming the flag, or
      # (text) taken and something else missing.  Never unknown.
      run --separate-stderr "$BUILD/workloads/$p" "$fl=@bad@"
      assert_failure 2
      [[ "$stderr" != *"unknown argument"* ]]
      [[ "$stderr" == "$p: "* ]]
    done
    run --separate-stderr "$BUILD/workloads/$p" --size 4M --no-such-flag
    assert_failure 2
    [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
    [[ "$stderr" == *"--no-such-flag: unknown argument"* ]]
  done
  # The declaration's types: a size with a bad unit, a count that is not one, an enum.
  run --separate-stderr "$BUILD/workloads/cachefill" --size 4X
  assert_failure 2
  [[ "$stderr" == "cachefill: --size: size '4X' has an unknown unit"* ]]
  run --separate-stderr "$BUILD/workloads/cachefill" --size 4M --reads many
  [[ "$stderr" == "cachefill: --reads: expected a whole number, got 'many'"* ]]
  run --separate-stderr "$BUILD/workloads/allocs" --allocator tcmalloc --size 4M
  assert_failure 2
  [[ "$stderr" == "allocs: --allocator: 'tcmalloc' is not one of glibc|jemalloc"* ]]
  run --separate-stderr "$BUILD/workloads/allocs" --allocator glibc --size
  assert_failure 2
  [[ "$stderr" == "allocs: --size needs a value"* ]]
}

# small ARGV...: the argv with every size made small (the flags as written).
small() {
  local out=() a prev=
  for a in "$@"; do
    case $prev in
    --size | --pressure) a=4194304 ;;
    --chunk) a=65536 ;;
    --hold) a=0 ;;
    esac
    out+=("$a")
    prev=$a
  done
  printf '%s\n' "${out[@]}"
}

@test "workloads: the argv pagelab builds for every shipped scenario running them is taken by the workload itself" {
  n=0
  for scn in $(grep -rlE '^program *= *(cachefill|allocs|goalloc)$' "$TOP/scenarios"); do
    run --separate-stderr "$PAGELAB" show "$scn"
    assert_success
    while IFS= read -r line; do
      read -ra argv <<<"$line"
      p=${argv[0]}
      case $p in cachefill | allocs | goalloc) ;; *) continue ;; esac
      [ "$p" != goalloc ] || [ -x "$BUILD/workloads/goalloc" ] || continue
      if [ "$p" = allocs ] && [[ "$line" == *jemalloc* ]] &&
        [ ! -f /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ] && [ ! -f /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 ]; then
        continue
      fi
      mapfile -t args < <(small "${argv[@]:1}")
      [ "$p" != cachefill ] || args+=(--dir "$tmp")
      stay=()     # --stay waits for SIGTERM, and then ends as usual
      [[ " ${args[*]} " != *" --stay "* ]] || stay=(timeout --preserve-status -s TERM 0.5)
      run --separate-stderr ${stay[@]+"${stay[@]}"} "$BUILD/workloads/$p" "${args[@]}"
      echo "$scn: $p ${args[*]} -> $status: $stderr"
      assert_success
      [ "$(printf '%s\n' "$output" | tail -1 | jq -r .event)" = done ]
      n=$((n + 1))
    done < <(printf '%s\n' "$output" | sed -n 's/^    [a-z0-9_-]*: \(\(cachefill\|allocs\|goalloc\) .*\)$/\1/p' | sort -u)
  done
  # cache-capacity and kswapd-runs (cachefill, each argv once), allocators (allocs ×4), go-alloc (goalloc ×3 where built)
  [ "$n" -ge 6 ]
  [ -z "$(ls -A "$tmp")" ]     # cachefill removed its files
}

@test "goalloc: a declared option main.go does not set (or the reverse) stops it at start, naming the option" {
  [ -x "$BUILD/workloads/goalloc" ] || skip "no workloads/goalloc (golang-go not installed when pagelab was built)"
  command -v go >/dev/null || skip "no go"
  cp "$BUILD"/goalloc-src/main.go "$tmp/"
  "$DECL2GO" goalloc "$tmp/decl_gen.go"
  cmp "$tmp/decl_gen.go" "$BUILD/goalloc-src/decl_gen.go"
  # One more row in the declaration than main.go knows.
  sed 's|^var declOpts = \[\]declOpt{$|&\n\t{Key: "stride", Flag: "--stride", Type: "mem", Help: "x"},|' \
    "$BUILD/goalloc-src/decl_gen.go" >"$tmp/decl_gen.go"
  (cd "$tmp" && env GOCACHE="$BUILD/go-cache" GOPATH="$BUILD/go-path" GO111MODULE=off CGO_ENABLED=0 \
    go build -o "$tmp/goalloc" main.go decl_gen.go)
  run --separate-stderr "$tmp/goalloc" --size 4M
  assert_failure 2
  [[ "$stderr" == "goalloc: the declaration (workloads/decl/goalloc.c) has option stride, main.go does not set it" ]]
  # One row fewer: main.go sets an option nobody declared.
  grep -v 'Key: "hold"' "$BUILD/goalloc-src/decl_gen.go" >"$tmp/decl_gen.go"
  (cd "$tmp" && env GOCACHE="$BUILD/go-cache" GOPATH="$BUILD/go-path" GO111MODULE=off CGO_ENABLED=0 \
    go build -o "$tmp/goalloc" main.go decl_gen.go)
  run --separate-stderr "$tmp/goalloc" --help
  assert_failure 2
  [[ "$stderr" == "goalloc: main.go sets option hold, the declaration (workloads/decl/goalloc.c) does not have it" ]]
}
