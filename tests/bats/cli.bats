#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The command line: help that tells the truth, exit codes of the contract
# (harness/cmd/cli.md), `check` and `list`.

load helpers

@test "--help lists every command and the exit statuses" {
  run "$PAGELAB" --help
  assert_success
  for c in run list show report check fit version; do assert_output --partial "  $c"; done
  assert_output --partial "3 this host cannot run it"
}

@test "every command's --help is exit 0 on stdout, with no printf escape left in it" {
  local c
  for c in run list show report plot compare fit check audit restore vm version; do
    run --separate-stderr "$PAGELAB" "$c" --help
    [ "$status" = 0 ] || { echo "$c --help: exit $status: $stderr"; false; }
    [ -n "$output" ] || { echo "$c --help printed nothing on stdout"; false; }
    ! grep -nE '%%|%[-0-9.]*[sdulf]\b|\\n' <<<"$output" || { echo "$c --help: a format escape printed as text"; false; }
  done
}

@test "no command, or an unknown one, is a usage error (exit 2)" {
  run "$PAGELAB"
  assert_failure 2
  run "$PAGELAB" frobnicate
  assert_failure 2
  assert_output --partial "unknown command 'frobnicate'"
}

@test "list shows the twelve MADV_FREE scenarios with titles, and lru-order, memory-high, pageout" {
  run "$PAGELAB" list
  assert_success
  [ "$(grep -c '^madv-free/' <<<"$output")" -eq 15 ]
  assert_output --partial "madv-free/lru-order"
  assert_output --partial "madv-free/memory-high"
  assert_output --partial "madv-free/pageout"
  assert_output --partial "madv-free/three-paths"
  refute_output --partial "broken"
}

@test "show types every variant without touching the host" {
  before=$(pagelab_cgroups)
  run "$PAGELAB" show madv-free/three-paths
  assert_success
  assert_output --partial "advise:none"
  assert_output --partial "advise:dontneed"
  assert_output --partial "pressure:734003200"
  [ "$(pagelab_cgroups)" = "$before" ]
}

@test "check --json describes this host: cgroup mode, THP, LazyFree, quirks" {
  run "$PAGELAB" check --json
  [ "$status" -eq 0 ] || [ "$status" -eq 3 ]
  jq -e '.kernel and (.cgroup.mode | test("^(v1|v2|hybrid|none)$")) and (.thp.enabled != null) and (.lazyfree | type == "boolean") and (.quirks | type == "array")' <<<"$output"
  # This host's kernel command line decides the deferred_init quirk.
  if grep -qw 'deferred_init=lazy' /proc/cmdline; then
    jq -e '[.quirks[] | select(startswith("deferred_init=lazy"))] | length == 1' <<<"$output"
  fi
}

@test "check --json: the fingerprint's DAMON monitors are the kernel's (its sysfs), and each one on is a quirk" {
  run "$PAGELAB" check --json
  [ "$status" -eq 0 ] || [ "$status" -eq 3 ]
  out=$output
  d=/sys/kernel/mm/damon/admin/kdamonds
  if [ ! -r "$d/nr_kdamonds" ]; then
    jq -e '.fingerprint.damon.kdamonds == "absent" and ([.quirks[] | select(startswith("DAMON"))] | length == 0)' <<<"$out"
    return
  fi
  n=$(cat "$d/nr_kdamonds")
  jq -e --argjson n "$n" '.fingerprint.damon.kdamonds | length == $n' <<<"$out"
  on=0
  for ((i = 0; i < n; i++)); do
    st=$(cat "$d/$i/state")
    [ "$st" = on ] && on=$((on + 1))
    nc=$(cat "$d/$i/contexts/nr_contexts")
    jq -e --argjson i "$i" --arg st "$st" --argjson nc "$nc" \
      '.fingerprint.damon.kdamonds[$i] | .state == $st and (.contexts | length) == $nc' <<<"$out"
    for ((c = 0; c < nc; c++)); do
      x=$d/$i/contexts/$c
      acts=$(for ((k = 0; k < $(cat "$x/schemes/nr_schemes"); k++)); do cat "$x/schemes/$k/action"; done | jq -R . | jq -sc .)
      jq -e --argjson i "$i" --argjson c "$c" --arg ops "$(cat "$x/operations")" --argjson acts "$acts" \
        --argjson aggr "$(cat "$x/monitoring_attrs/intervals/aggr_us")" \
        '.fingerprint.damon.kdamonds[$i].contexts[$c] | .operations == $ops and .aggr_us == $aggr
         and [.schemes[].action] == $acts' <<<"$out"
    done
  done
  jq -e --argjson on "$on" '[.quirks[] | select(startswith("DAMON: kdamond"))] | length == $on' <<<"$out"
}

@test "check --json: the fingerprint's zero_page is what a read of fresh anonymous memory does here, and \"allocate\" is a quirk" {
  cat >"$BATS_TEST_TMPDIR/zp.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
static long rss_anon(void)
{
	char l[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(l, sizeof(l), f))
		if (!strncmp(l, "RssAnon:", 8))
			sscanf(l + 8, "%ld", &v);
	if (f)
		fclose(f);
	return v;
}
int main(void)
{
	size_t n = 16u << 20;
	volatile char *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long a, b;

	if (p == MAP_FAILED)
		return 1;
	madvise((void *)p, n, MADV_NOHUGEPAGE);
	a = rss_anon();
	for (size_t i = 0; i < n; i += 4096)
		(void)p[i];
	b = rss_anon();
	printf("%s\n", b - a >= 16000 ? "allocate" : b - a < 1024 ? "zero page" : "?");
	return 0;
}
C
  cc -O1 -o "$BATS_TEST_TMPDIR/zp" "$BATS_TEST_TMPDIR/zp.c" || skip "no C compiler to try the zero page with"
  want=$("$BATS_TEST_TMPDIR/zp")
  run "$PAGELAB" check --json
  [ "$status" -eq 0 ] || [ "$status" -eq 3 ]
  jq -e --arg w "$want" '.fingerprint.zero_page == $w' <<<"$output"
  jq -e --arg w "$want" '([.quirks[] | select(startswith("no zero page"))] | length) == (if $w == "allocate" then 1 else 0 end)' <<<"$output"
}

@test "check exits 0 here only when root, a memory controller and LazyFree are present" {
  run "$PAGELAB" check --json
  ok=$(jq -r '(.root and .lazyfree and (.cgroup.memory == "v1" or .cgroup.memory == "v2"))' <<<"$output")
  if [ "$ok" = true ]; then [ "$status" -eq 0 ]; else [ "$status" -eq 3 ]; fi
}

@test "a v2-only scenario on a v1 host exits 3 naming the missing requirement" {
  [ "$(id -u)" = 0 ] || skip "needs root"
  mem=$("$PAGELAB" check --json | jq -r .cgroup.memory)
  [ "$mem" = v1 ] || skip "this host has the memory controller on $mem"
  before=$(pagelab_cgroups)
  run "$PAGELAB" run madv-free/reclaim --no-report --out "$RESULTS/reclaim-v1.json"
  assert_failure 3
  assert_output --partial "cgroup v2"
  [ ! -e "$RESULTS/reclaim-v1.json" ]
  [ "$(pagelab_cgroups)" = "$before" ]
}

@test "version names the commit the build was made of, and a result document the same" {
  run "$PAGELAB" version
  assert_success
  assert_output --regexp '^pagelab [0-9]+\.[0-9]+\.[0-9]+ \(([0-9a-f]{12}|unknown)(, modified)?\)$'
  # Built from this checkout (CI's clone, as built): its HEAD, not the
  # commit the build directory was configured at.
  if [ "$BUILD" = "$TOP/build" ] && head=$(git -C "$TOP" rev-parse --short=12 HEAD 2>/dev/null); then
    assert_output --partial "($head"
  fi
  commit=$(sed -E 's/^pagelab [^ ]+ \(([0-9a-f]+|unknown).*/\1/' <<<"$output")
  modified=false
  [[ $output != *", modified)" ]] || modified=true
  [ "$commit" = unknown ] && modified=null
  run "$PAGELAB" run madv-free/probe --set region=4M --repeat 1 --no-report --out "$BATS_TEST_TMPDIR/p.json"
  assert_success
  jq -e --arg c "$commit" --argjson m "$modified" \
    '.harness.commit == $c and .harness.modified == $m and (.harness.version | test("^[0-9]+\\.[0-9]+\\.[0-9]+$"))' \
    "$BATS_TEST_TMPDIR/p.json"
}

@test "the commit is asked at every build: a commit or an edit changes it, an unchanged tree rewrites nothing" {
  d=$BATS_TEST_TMPDIR/tree
  h=$BATS_TEST_TMPDIR/gen/commit.c
  asked() { cmake -DSRC="$1" -DOUT="$h" -P "$TOP/cmake/commit.cmake"; }
  mkdir -p "$d"
  git -C "$d" init -q
  echo one >"$d/f"
  git -C "$d" add f
  git -C "$d" -c user.name=t -c user.email=t@localhost commit -qm one
  asked "$d"
  grep -qx "const char run_commit\[\] = \"$(git -C "$d" rev-parse --short=12 HEAD)\";" "$h"
  grep -qx 'const int run_modified = 0;' "$h"
  # Unchanged: the file is not written again (nothing recompiles).
  before=$(stat -c %y "$h")
  sleep 0.05
  asked "$d"
  [ "$(stat -c %y "$h")" = "$before" ]
  # An untracked file is not a change; an edited tracked file is.
  echo x >"$d/untracked"
  asked "$d"
  grep -qx 'const int run_modified = 0;' "$h"
  echo two >"$d/f"
  asked "$d"
  grep -qx 'const int run_modified = 1;' "$h"
  [ "$(stat -c %y "$h")" != "$before" ]
  # A new commit is named at the next build.
  git -C "$d" -c user.name=t -c user.email=t@localhost commit -qam two
  asked "$d"
  grep -qx "const char run_commit\[\] = \"$(git -C "$d" rev-parse --short=12 HEAD)\";" "$h"
  grep -qx 'const int run_modified = 0;' "$h"
  # A folder inside another checkout, or no checkout at all: unknown.
  mkdir "$d/sub"
  asked "$d/sub"
  grep -qx 'const char run_commit\[\] = "unknown";' "$h"
  grep -qx 'const int run_modified = -1;' "$h"
  mkdir "$BATS_TEST_TMPDIR/plain"
  asked "$BATS_TEST_TMPDIR/plain"
  grep -qx 'const char run_commit\[\] = "unknown";' "$h"
  run cmake -P "$TOP/cmake/commit.cmake"
  assert_failure
  assert_output --partial "SRC and OUT must be given"
}
