# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by vm.bats and vm-host.bats: a guest run into $RESULTS/vm-STEM/ and what
# every guest result must say.

# vm_run STEM [vm options...] run NAME [run options...]: both kernels (unless
# the options name one), results in $RESULTS/vm-STEM/.
vm_run() {
  local stem=$1
  shift
  guest_run "vm-$stem" --timeout 300 "$@"
}

# The guest result documents of STEM, one per line (kernel order as booted).
guest_results() {
  ls "$RESULTS/vm-$1"/*-guest-*.json
}

# What every guest result must say: a pure v2 guest, the sandbox on v2, the
# guest's shape recorded, and its console log kept beside it.
check_guest_doc() {
  local f=$1
  jq -e '.host.in_vm_guest == true and .host.cgroup.memory == "v2" and .host.cgroup.mode == "v2"' "$f"
  jq -e '.host.cgroup.self == "/"' "$f"
  jq -e '.runs | length > 0 and all(.sandbox | .version == "v2" and .swap_max_bytes == 0 and .oom_group == true and (.path | test("^/sys/fs/cgroup/pagelab-[0-9]+/sandbox-[0-9]+$")))' "$f"
  jq -e '.vm.release == .host.kernel and .vm.accel == "tcg" and .vm.exit_code == 0' "$f"
  [ -s "$(jq -r .vm.console_log "$f")" ]
  [ -s "${f%.json}.jsonl" ]
}

# Both kernels came back, one result each.
check_both_kernels() {
  local stem=$1
  [ "$(guest_results "$stem" | wc -l)" -eq 2 ]
  [ "$(jq -rs 'map(.vm.kernel_asked) | sort | join(" ")' $(guest_results "$stem"))" = "6.1 6.12" ]
}
