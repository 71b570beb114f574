#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Where users run pagelab (issue 14): installed under a prefix, as a Debian
# package in a clean Debian 12 container, on an Ansible inventory of podman
# containers, and the manifests for larger fleets (docs/fleet.md) checked by
# what Debian packages.
#
# The package in a clean container and the Ansible fleet: tests/bats/package.bats;
# a QEMU guest's progress seen as it happens: vm.bats (a guest file).
# Measured here (6.18, 2 CPUs): install + run ≈ 2 s.

load helpers

@test "cmake --install: the installed pagelab finds its scenarios, workloads and reference data without the source tree" {
  prefix="$BATS_TEST_TMPDIR/prefix"
  cmake --install "$PAGELAB_BUILD" --prefix "$prefix/usr" >/dev/null
  # FHS places: bin, libexec/pagelab, share/pagelab, the man page.
  [ -x "$prefix/usr/bin/pagelab" ]
  for w in region hold lazyscan stepper cachefill; do [ -x "$prefix/usr/libexec/pagelab/$w" ]; done
  [ -f "$prefix/usr/share/pagelab/scenarios/madv-free/probe.scn" ]
  [ -f "$prefix/usr/share/pagelab/results/reference/madv-free.json" ]
  [ -x "$prefix/usr/share/pagelab/guest/vm-run" ]
  [ -f "$prefix/usr/share/man/man1/pagelab.1" ]
  # From /, with nothing pointing at the tree: it must use its own share/ and libexec/.
  cd /
  run env -u PAGELAB_SCENARIOS -u PAGELAB_WORKLOADS "$prefix/usr/bin/pagelab" list
  assert_success
  assert_output --partial "madv-free/probe"
  require_memcg
  run env -u PAGELAB_SCENARIOS -u PAGELAB_WORKLOADS "$prefix/usr/bin/pagelab" run madv-free/probe \
    --repeat 1 --no-report --out "$RESULTS/installed-probe.json"
  assert_success
  [ "$(jq -r '.runs[0].exit.outcome' "$RESULTS/installed-probe.json")" = completed ]
  run env -u PAGELAB_SCENARIOS "$prefix/usr/bin/pagelab" report "$RESULTS/installed-probe.json"
  assert_success
  assert_output --partial "Reference data: $prefix/usr/share/pagelab/results/reference/madv-free.json"
}

@test "pagelab(1) is help2man's rendering of pagelab --help: every command of --help is in it" {
  command -v help2man >/dev/null || skip "help2man is not installed (scripts/setup installs it)"
  command -v man >/dev/null || skip "man-db is not installed"
  man1="$PAGELAB_BUILD/pagelab.1"
  [ -f "$man1" ] || skip "no $man1: the build was configured before help2man was installed (rerun cmake)"
  grep -q '^\.TH PAGELAB "1"' "$man1"
  page=$(MANWIDTH=200 man -l "$man1" 2>/dev/null)
  # Each command line of --help (the usage_text of main.c, the one copy) is a
  # line of the page, in the same order.
  want=$("$PAGELAB" --help | sed -n 's/^  \([a-z][a-z]*\)\( .*\)\{0,1\}$/\1/p' | tr '\n' ' ')
  have=$(sed -n '/^       run /,$ s/^       \([a-z][a-z]*\)\( .*\)\{0,1\}$/\1/p' <<<"$page" | tr '\n' ' ')
  [ -n "$want" ]
  [ "$want" = "${have:0:${#want}}" ] || { echo "--help: $want"; echo "page:   $have"; false; }
  grep -q 'bad usage or input (nothing changed)' <<<"$page"
  grep -q '/var/lib/pagelab/journal' <<<"$page"
}

@test "docs/fleet: the LAVA job passes lava-common's job schema, and the schema refuses a broken copy" {
  /usr/bin/python3 -c 'import lava_common.schemas' 2>/dev/null ||
    skip "lava-common is not installed (scripts/setup installs it)"
  run /usr/bin/python3 - "$TOP/docs/fleet/lava-qemu-job.yaml" <<'EOF'
import sys, copy, yaml
from lava_common.schemas import validate
job = yaml.safe_load(open(sys.argv[1]))
validate(job, strict=True, extra_context_variables=[])
bad = copy.deepcopy(job)
bad["actions"][1]["boot"]["methd"] = bad["actions"][1]["boot"].pop("method")
try:
    validate(bad, strict=True, extra_context_variables=[])
    print("a broken job was accepted")
    sys.exit(1)
except Exception as e:
    print("valid; broken copy refused:", str(e)[:80])
steps = job["actions"][2]["test"]["definitions"][0]["repository"]["run"]["steps"]
assert any("--measurement" in s and "min_free_kbytes.value_kb" in s for s in steps)
assert any("madv-free/three-paths" in s for s in steps)
EOF
  assert_success
  assert_output --partial "valid; broken copy refused"
}

@test "docs/fleet: the Kubernetes manifests parse and run only the read-only audit, unprivileged" {
  command -v yamllint >/dev/null || skip "yamllint is not installed (scripts/setup installs it)"
  /usr/bin/python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"
  run yamllint -d '{extends: relaxed, rules: {line-length: disable}}' "$TOP"/docs/fleet/audit-*.yaml
  assert_success
  run /usr/bin/python3 - "$TOP"/docs/fleet/audit-daemonset.yaml "$TOP"/docs/fleet/audit-job.yaml <<'EOF'
import sys, yaml
for f in sys.argv[1:]:
    d = yaml.safe_load(open(f))
    assert d["kind"] in ("DaemonSet", "Job"), f
    spec = d["spec"]["template"]["spec"]
    for c in spec["containers"]:
        sc = c["securityContext"]
        assert sc["privileged"] is False and sc["readOnlyRootFilesystem"] is True, f
        assert sc["capabilities"]["drop"] == ["ALL"] and sc["capabilities"]["add"] == ["SYSLOG"], f
        cmd = " ".join(c.get("command", []) + c.get("args", []))
        assert "audit" in cmd and "--json" in cmd and " run " not in cmd, (f, cmd)
        assert all(m["readOnly"] for m in c["volumeMounts"]), f
    print(f, "ok")
EOF
  assert_success
}
