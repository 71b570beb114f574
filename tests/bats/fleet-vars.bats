#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lane: any (files only: no cgroup, knob, container, guest or lasting process of this host's; scripts/test)
# The fleet playbook's variables (containers/fleet/playbook.yml, its first
# play) are checked on the controller before any host is touched: a scenario
# is a catalogue name (GROUP/NAME of lower-case letters, digits and '-'), a
# repeat an integer 1..100, the package an existing .deb — so
# `-e pagelab_repeat="1 --allow-destructive"` can no longer pass a flag the
# playbook says it never passes.  Before, pagelab_repeat was pasted into
# pagelab's command line and nothing was checked.
#
# No host is touched: the inventory is empty and pagelab_hosts matches no
# host, so a playbook whose variables pass does nothing after the first play
# (exit 0), and one whose variables fail stops there (exit 2).  The fleet
# itself (podman containers) is scripts/package-ci fleet (package.bats).
# About 2 s per ansible-playbook here.

load helpers

setup_file() {
  FLEET_SKIP=""
  command -v ansible-playbook >/dev/null || FLEET_SKIP="ansible-playbook is not installed (scripts/setup installs ansible)"
  export FLEET_SKIP
}

setup() {
  [ -z "$FLEET_SKIP" ] || skip "$FLEET_SKIP"
  DEB="$BATS_TEST_TMPDIR/pagelab_0.0.0_amd64.deb"
  echo "not installed: no host is touched" >"$DEB"
  : >"$BATS_TEST_TMPDIR/inventory.ini"
}

# play VAR=VALUE...|JSON...: the playbook with these extra variables, each
# given as JSON (-e '{"VAR": "VALUE"}') so that a value arrives whole: `-e
# VAR=VALUE` would be split at its blanks by Ansible itself (parse_kv), while
# -e '{"pagelab_repeat": "1 --allow-destructive"}' or a vars file is taken
# as it is — which is what the old playbook pasted into pagelab's arguments.
play() {
  local e=() v
  for v in "$@"; do
    case "$v" in
    "{"*) e+=(-e "$v") ;;
    *) e+=(-e "$(jq -cn --arg k "${v%%=*}" --arg v "${v#*=}" '{($k): $v}')") ;;
    esac
  done
  ANSIBLE_NOCOLOR=1 ANSIBLE_LOCALHOST_WARNING=False ANSIBLE_INVENTORY_UNPARSED_WARNING=False \
    ANSIBLE_LOCAL_TEMP="$BATS_TEST_TMPDIR/ansible-tmp" ANSIBLE_HOME="$BATS_TEST_TMPDIR/ansible-home" \
    run ansible-playbook -i "$BATS_TEST_TMPDIR/inventory.ini" "$TOP/containers/fleet/playbook.yml" \
    -e pagelab_hosts=no_such_host "${e[@]}"
}

# refused MESSAGE: the playbook failed in its first play with MESSAGE, and
# never reached the play on the hosts.  (A plain status: it is used after
# `||`, where bats' errexit does not stop a function at a failed assert.)
refused() {
  [ "$status" -ne 0 ] && [[ "$output" == *"$1"* ]] && [[ "$output" != *"PLAY [pagelab on a fleet]"* ]]
}

@test "fleet variables: a well-formed set passes, and no host is touched" {
  play "pagelab_deb=$DEB" pagelab_scenario=madv-free/probe pagelab_repeat=3 pagelab_allow_knobs=false
  assert_success
  assert_output --partial "skipping: no hosts matched"
  play "pagelab_deb=$DEB"
  assert_success
}

@test "fleet variables: pagelab_repeat must be an integer 1..100 ('1 --allow-destructive' refused)" {
  for r in "1 --allow-destructive" "--allow-destructive" 0 101 -1 3x "3;id" 1e3 " 3"; do
    play "pagelab_deb=$DEB" pagelab_scenario=madv-free/probe "pagelab_repeat=$r"
    refused "pagelab_repeat '$r' is not an integer from 1 to 100" || { echo "repeat '$r' was not refused"; false; }
  done
  play "pagelab_deb=$DEB" pagelab_scenario=madv-free/probe pagelab_repeat=100
  assert_success
  # As JSON (a number, not a string), too.
  play "pagelab_deb=$DEB" '{"pagelab_scenario": "madv-free/probe", "pagelab_repeat": 2}'
  assert_success
}

@test "fleet variables: pagelab_scenario must be a catalogue name (no path, option, word list or shell)" {
  for s in "madv-free/probe --allow-destructive" "../../etc/passwd" "/tmp/x.scn" "./x.scn" \
           "madv-free/probe;id" '$(id)' "madv-free" "Madv-Free/Probe" "madv-free/probe.scn" "-h" \
           "madv-free//probe" "madv-free/probe/"; do
    play "pagelab_deb=$DEB" "pagelab_scenario=$s"
    refused "is not a scenario name of the catalogue" || { echo "scenario '$s' was not refused"; false; }
  done
  play "pagelab_deb=$DEB" pagelab_scenario=watermarks/kswapd-runs
  assert_success
}

@test "fleet variables: pagelab_deb must be an existing .deb; pagelab_allow_knobs a boolean" {
  play
  refused "pagelab_deb: pass -e pagelab_deb=" || { echo "$output"; false; }
  play "pagelab_deb=$BATS_TEST_TMPDIR/none.deb"
  refused "pagelab_deb: pass -e pagelab_deb=" || { echo "$output"; false; }
  play "pagelab_deb=$BATS_TEST_TMPDIR/inventory.ini"
  refused "pagelab_deb: pass -e pagelab_deb=" || { echo "$output"; false; }
  play "pagelab_deb=$DEB" pagelab_allow_knobs=maybe
  refused "pagelab_allow_knobs 'maybe' is not true or false" || { echo "$output"; false; }
  play "pagelab_deb=$DEB" pagelab_allow_knobs=true
  assert_success
}
