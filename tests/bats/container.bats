#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# pagelab in a privileged container (issue 5, containers/README.md).
#
# 1. `--sandbox self` on this host, in a memory cgroup made for it below ours
#    with the article's limits (1 GiB, memsw = limit: no swap): the three paths
#    come out as with a child sandbox, the result says mode "self" with its
#    baseline, and a wrong limit is refused with exit 3 before anything runs.
# 2. scripts/container-ci: the image built with podman from a debootstrapped
#    Debian 12 base, madv-free.bats items 1, 5 and 9 run INSIDE the container in
#    both modes, a wrong container limit refused, and nothing left on the host:
#    no cgroup directory podman made, no podman state outside .cache/.
#    Measured here: 111 s with debootstrap, 57 s with the base cached in
#    .cache/container-ci/base (see containers/README.md).  Tracing inside
#    (container-ci check_trace, both modes and engines): the rig's traced
#    three-paths and the suite's pressure run asserted, tracefs as found
#    inside and on the host; the whole podman test took 170-190 s here on a
#    busy machine (140 s before, on a quieter one).

load helpers

# The host's tracefs mount (mount point, options, type), empty when none.
host_tracefs_mount() {
  awk '$5 == "/sys/kernel/tracing" && / - tracefs /' /proc/self/mountinfo | cut -d' ' -f5-
}

# Tracing instances of pagelab runs in another pid namespace (a container's:
# pagelab-PID-RUN-nsINO) in the host's tracefs, looked at in a mount namespace
# of our own when tracefs is not mounted here.  Container runs are one at a
# time (the heavy-run lock) and a guest has its own kernel: after the
# container has gone, none may be left.
container_instances() {
  local ns
  ns=$(stat -Lc %i /proc/self/ns/pid)
  if [ -n "$(host_tracefs_mount)" ]; then
    ls /sys/kernel/tracing/instances
  else
    unshare --mount --propagation private -- sh -c \
      'mount -t tracefs nodev /sys/kernel/tracing && ls /sys/kernel/tracing/instances'
  fi | grep '^pagelab-.*-ns[0-9]*$' | grep -v -- "-ns$ns\$" || true
}

setup() {
  require_memcg
  before_cg=$(pagelab_cgroups)
}

teardown() {
  if [ -n "${selfcg:-}" ] && [ -d "$selfcg" ]; then rmdir "$selfcg" || echo "cannot remove $selfcg"; fi
  [ -z "$(cgroups_new "${before_cg:-}")" ] || { echo "cgroups left: $(cgroups_new "${before_cg:-}")"; return 1; }
}

# A v1 memory cgroup below ours with the article's limits; pagelab started in
# it as the only process (the subshell moves itself in, then execs pagelab).
in_self_cgroup() {
  selfcg="$(own_memcg)/self-test-$$"
  mkdir "$selfcg"
  echo "$1" >"$selfcg/memory.limit_in_bytes"
  [ ! -e "$selfcg/memory.memsw.limit_in_bytes" ] || echo "$2" >"$selfcg/memory.memsw.limit_in_bytes"
  shift 2
  run bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$selfcg" "$@"
}

@test "--sandbox self on this host: the three paths in a 1 GiB cgroup of pagelab's own" {
  [ -d /sys/fs/cgroup/memory ] || skip "the host-side self test uses a v1 memory cgroup; this host's memory controller is on v2"
  stem=self-three-paths
  in_self_cgroup 1073741824 1073741824 "$PAGELAB" run madv-free/three-paths --repeat 1 --no-report \
    --out "$RESULTS/$stem.json" --sandbox self
  assert_success
  jq -e '[.runs[].sandbox | select(.mode == "self" and .baseline_bytes > 0)] | length == 3' "$RESULTS/$stem.json"
  [ "$(rq $stem '.runs[0].sandbox.path')" = "$selfcg" ]
  for r in 0 1 2; do
    case $(rq $stem ".runs[$r].variant.advice") in
      none) [ "$(rq $stem ".runs[$r].exit.outcome")" = oom_killed ]
            [ "$(rq $stem ".runs[$r].exit.oom_kill_count")" -ge 1 ] ;;
      free) [ "$(rq $stem ".runs[$r].exit.outcome")" = completed ]
            # the OOM kill of the first run is not counted again in this one
            [ "$(rq $stem ".runs[$r].exit.oom_kill_count")" -eq 0 ] ;;
      dontneed) [ "$(rq $stem ".runs[$r].exit.outcome")" = completed ] ;;
    esac
  done
  # pagelab itself stayed where it was, and no child cgroup was made
  [ -z "$(find "$selfcg" -mindepth 1 -type d)" ]
}

@test "--sandbox self refuses a limit that is not the scenario's: exit 3, one clear line" {
  [ -d /sys/fs/cgroup/memory ] || skip "the host-side self test uses a v1 memory cgroup; this host's memory controller is on v2"
  in_self_cgroup 805306368 805306368 "$PAGELAB" run madv-free/three-paths --repeat 1 --no-report \
    --out "$RESULTS/self-refused.json" --sandbox self
  assert_failure 3
  assert_output --partial "memory limit of pagelab's own cgroup is 805306368 bytes (768 MiB)"
  assert_output --partial "--memory 1024m --memory-swap 1024m"
  [ ! -e "$RESULTS/self-refused.json" ]
  # swap allowed (memsw above the limit) is refused too
  [ -e "$selfcg/memory.memsw.limit_in_bytes" ] || return 0     # no swap accounting: nothing to refuse
  rmdir "$selfcg"
  in_self_cgroup 1073741824 2147483648 "$PAGELAB" run madv-free/three-paths --repeat 1 --no-report \
    --out "$RESULTS/self-refused.json" --sandbox self
  assert_failure 3
  assert_output --partial "may swap 1073741824 bytes"
}

@test "--sandbox takes child or self only" {
  run "$PAGELAB" run madv-free/three-paths --sandbox bogus
  assert_failure 2
  assert_output --partial "--sandbox: expected child or self"
}

@test "scripts/container-ci: the invariants inside a privileged podman container, both modes, nothing left" {
  for c in podman runc debootstrap; do
    command -v $c >/dev/null || skip "$c is not installed (scripts/setup installs podman, runc and debootstrap; did apt-get fail?)"
  done
  own=$(sed -n 's/^[0-9]*:[^:]*\bmemory\b[^:]*:\(.*\)$/\1/p' /proc/self/cgroup)
  log="$BATS_TEST_TMPDIR/container-ci.log"
  # podman's default places: none of them may appear (storage and run state
  # stay in .cache/container-ci, runc's state too).
  defaults="/var/lib/containers /run/containers /run/libpod /run/runc"
  before=$(for p in $defaults; do [ ! -e "$p" ] || echo "$p"; done)
  tracefs_before=$(host_tracefs_mount)
  [ -z "$(container_instances)" ] || { echo "container tracing instances before the test: $(container_instances)"; false; }
  # The image podman builds is saved for the Docker test below (one build fewer).
  run --separate-stderr env PAGELAB_CI_IMAGE_TAR="$BATS_FILE_TMPDIR/pagelab-ci-image.tar" "$TOP/scripts/container-ci"
  printf '%s\n' "$output" "$stderr" >"$log"
  [ "$status" -eq 0 ] || { cat "$log"; false; }
  grep -q 'container-ci: mode child: 3 passed, 0 failed' <<<"$stderr"
  grep -q 'container-ci: mode self: 3 passed, 0 failed' <<<"$stderr"
  grep -q 'refused (exit 3)' <<<"$stderr"
  # Tracepoints from inside (container-ci check_trace): in each mode the
  # rig's MADV_FREE run recorded paired memcg reclaim begin/end records of
  # its sandbox that reclaimed the region's lost pages, the OOM victim by the
  # run's own pid, 0 lost, and no instance left inside or on the host.
  for m in child self; do
    grep -Eq "container-ci: mode $m: tracepoints in the container: [1-9][0-9]* memcg reclaim stalls of the sandbox, [1-9][0-9]* pages (=|for) the [1-9][0-9]* the region lost, OOM victim by the run's pid, 0 lost, [0-9]+ instances, none left inside or on the host" <<<"$stderr"
  done
  # The host's tracefs as found: mounted as before (or not), no instance of
  # the containers' runs.
  [ "$(host_tracefs_mount)" = "$tracefs_before" ]
  [ -z "$(container_instances)" ] || { echo "tracing instances left by the containers: $(container_instances)"; false; }
  # Both tables printed: the OOM kill without madvise, the survivors with it.
  [ "$(grep -c 'no call at all · Under pressure | Outcome | OOM-kill (137)' <<<"$output")" -eq 2 ]
  [ "$(grep -c 'MADV_DONTNEED · Data | Pages read back as zero | 131,071 pages zeroed' <<<"$output")" -eq 2 ]
  # Nothing left behind: no cgroup directory podman made in any hierarchy,
  # no podman state outside .cache/, only the cached base root filesystem.
  [ -z "$(find /sys/fs/cgroup -path "*$own/container-ci*" 2>/dev/null)" ]
  grep -q 'cgroups: removed [0-9]* directories podman made$' <<<"$stderr"
  [ -s "${PAGELAB_CI_DIR:-$TOP/.cache/container-ci}/base/debian-bookworm-minbase.tar" ]
  [ ! -e "${PAGELAB_CI_DIR:-$TOP/.cache/container-ci}/storage" ]
  # conmon's "oom" marker goes to the state directory, not the caller's (this) one
  [ ! -e "$TOP/oom" ]
  after=$(for p in $defaults; do [ ! -e "$p" ] || echo "$p"; done)
  [ "$after" = "$before" ] || { echo "podman wrote outside .cache: $after"; false; }
}

@test "scripts/container-ci --engine docker: the same checks with Docker Engine, a private dockerd, nothing left" {
  # Docker Engine (Debian's docker.io 20.10): a dockerd started for the test
  # with its state in .cache/container-ci/docker and a short exec root in
  # /tmp, stopped by its pid; the same image and checks as podman's above.
  # Here --privileged cannot be granted (the bounding set lacks
  # CAP_SYS_RESOURCE), so containers/run must say so in one line (exit 3) and
  # the checks run with --privileged-equivalent.  Storage overlay2 in the
  # daemon's own mount namespace.  Measured here (2026-12-03, building its own
  # image from an empty cache): 202 s, 115 s of it the build.
  [ -x /usr/sbin/dockerd ] && [ -x /usr/bin/docker ] ||
    skip "docker.io is not installed (scripts/setup installs it; did apt-get fail?)"
  command -v debootstrap >/dev/null || skip "debootstrap is not installed"
  own=$(sed -n 's/^[0-9]*:[^:]*\bmemory\b[^:]*:\(.*\)$/\1/p' /proc/self/cgroup)
  defaults="/var/lib/docker /var/lib/containerd /run/docker /run/containerd /etc/docker/key.json"
  before=$(for p in $defaults; do [ ! -e "$p" ] || echo "$p"; done)
  tracefs_before=$(host_tracefs_mount)
  [ -z "$(container_instances)" ] || { echo "container tracing instances before the test: $(container_instances)"; false; }
  log="$BATS_TEST_TMPDIR/container-ci-docker.log"
  # podman's image (the test above) is loaded, not built again; without it
  # (podman's test skipped or failed before its build) Docker builds its own.
  tar="$BATS_FILE_TMPDIR/pagelab-ci-image.tar"
  run --separate-stderr env PAGELAB_CI_IMAGE_TAR="$tar" "$TOP/scripts/container-ci" --engine docker
  printf '%s\n' "$output" "$stderr" >"$log"
  [ "$status" -eq 0 ] || { cat "$log"; false; }
  if [ -f "$tar" ]; then grep -q "image localhost/pagelab:ci loaded from $tar" <<<"$stderr"
  else grep -q 'image localhost/pagelab:ci built' <<<"$stderr"; fi
  grep -q 'container-ci: docker: dockerd 20\.' <<<"$stderr"
  grep -q 'container-ci: docker: mode child: 3 passed, 0 failed' <<<"$stderr"
  grep -q 'container-ci: docker: mode self: 3 passed, 0 failed' <<<"$stderr"
  grep -q 'docker: --sandbox self with --memory 768m refused (exit 3)' <<<"$stderr"
  grep -q 'a missing image and an impossible --privileged each said in one line' <<<"$stderr"
  for m in child self; do
    grep -Eq "container-ci: docker: mode $m: tracepoints in the container: [1-9][0-9]* memcg reclaim stalls of the sandbox, [1-9][0-9]* pages (=|for) the [1-9][0-9]* the region lost, OOM victim by the run's pid, 0 lost, [0-9]+ instances, none left inside or on the host" <<<"$stderr"
  done
  [ "$(host_tracefs_mount)" = "$tracefs_before" ]
  [ -z "$(container_instances)" ] || { echo "tracing instances left by the containers: $(container_instances)"; false; }
  [ "$(grep -c 'no call at all · Under pressure | Outcome | OOM-kill (137)' <<<"$output")" -eq 2 ]
  [ "$(grep -c 'MADV_DONTNEED · Data | Pages read back as zero | 131,071 pages zeroed' <<<"$output")" -eq 2 ]
  # Nothing left: the daemon (by the pid it was started with), its state and
  # exec root, no mount, no cgroup directory it made, nothing in Docker's
  # default places.
  pid=$(sed -n 's/.*dockerd .* up (pid \([0-9]*\),.*/\1/p' <<<"$stderr")
  [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null
  grep -q 'cgroups: removed [0-9]* directories docker made$' <<<"$stderr"
  [ -z "$(find /sys/fs/cgroup -path "*$own/docker-ci*" 2>/dev/null)" ]
  [ ! -e "${PAGELAB_CI_DIR:-$TOP/.cache/container-ci}/docker" ]
  ! grep -q 'pagelab-dockerd' /proc/self/mountinfo
  [ -z "$(find /tmp -maxdepth 1 -name 'pagelab-dockerd.*' 2>/dev/null)" ]
  after=$(for p in $defaults; do [ ! -e "$p" ] || echo "$p"; done)
  [ "$after" = "$before" ] || { echo "dockerd wrote outside its state: $after"; false; }
}
