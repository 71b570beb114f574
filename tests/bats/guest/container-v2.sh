#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run by tests/bats/container-vm.bats inside a pure cgroup v2 QEMU guest
# (guest/vm-run): what a v2 container (Docker Desktop: cgroupns private)
# shows pagelab, made with util-linux unshare (--bin'd as /bin/ul-unshare):
# a cgroup namespace rooted at a cgroup of its own, cgroup2 mounted inside.
# One "PASS name" or "FAIL name: why" line per check.
S=/scn/three-paths.scn
CG=/sys/fs/cgroup
export PAGELAB_WORKLOADS=/bin
check() { if [ "$2" = 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }
outcomes() { # FILE: the runs' exit outcomes in run order (none, free, dontneed)
  grep -o '"outcome": *"[a-z_]*"' "$1" | sed 's/.*"\([a-z_]*\)"$/\1/' | tr '\n' ' '
}

# 1. --sandbox self in the container's own cgroup: 1 GiB, no swap.
mkdir $CG/ctr
echo 1073741824 >$CG/ctr/memory.max
echo 0 >$CG/ctr/memory.swap.max
sh -c "echo \$\$ >$CG/ctr/cgroup.procs; exec /bin/ul-unshare --cgroup --mount --propagation private sh -c \
  'umount -l $CG && mount -t cgroup2 none $CG && exec /bin/pagelab run $S --repeat 1 --no-report --sandbox self --out /out/files/self.json'" \
  >/out/files/self.out 2>&1
check self-exit $? "$(tail -2 /out/files/self.out)"
o=$(outcomes /out/files/self.json)
[ "$o" = "oom_killed completed completed " ]; check self-outcomes $? "$o"
grep -q '"mode": *"self"' /out/files/self.json; check self-mode $? "no mode self"

# 2. a wrong limit: exit 3 before anything runs
echo 805306368 >$CG/ctr/memory.max
sh -c "echo \$\$ >$CG/ctr/cgroup.procs; exec /bin/ul-unshare --cgroup --mount --propagation private sh -c \
  'umount -l $CG && mount -t cgroup2 none $CG && exec /bin/pagelab run $S --repeat 1 --no-report --sandbox self --out /out/files/refused.json'" \
  >/out/files/refused.out 2>&1
rc=$?
[ $rc = 3 ] && grep -q 'memory limit of pagelab.s own cgroup is 805306368' /out/files/refused.out
check self-refused $? "exit $rc: $(tail -1 /out/files/refused.out)"
echo max >$CG/ctr/memory.max
echo max >$CG/ctr/memory.swap.max

# 3. child mode: pagelab alone in the namespace's root (a container's pid 1):
# its lab group goes below, and at the end the container's cgroup is plain
# again (no memory in its subtree_control, no pagelab group left).
sh -c "echo \$\$ >$CG/ctr/cgroup.procs; exec /bin/ul-unshare --cgroup --mount --propagation private sh -c \
  'umount -l $CG && mount -t cgroup2 none $CG && exec /bin/pagelab run $S --repeat 1 --no-report --out /out/files/child.json'" \
  >/out/files/child.out 2>&1
check child-exit $? "$(tail -2 /out/files/child.out)"
o=$(outcomes /out/files/child.json)
[ "$o" = "oom_killed completed completed " ]; check child-outcomes $? "$o"
[ -z "$(cat $CG/ctr/cgroup.subtree_control)" ]; check child-subtree-plain $? "$(cat $CG/ctr/cgroup.subtree_control)"
[ -z "$(find $CG/ctr -mindepth 1 -type d)" ]; check child-nothing-left $? "$(find $CG/ctr -mindepth 1 -type d)"

# 4. a cgroup namespace whose cgroup2 mount was made outside it ("/.." root):
# refused, never mistaken for the real root.
sh -c "echo \$\$ >$CG/ctr/cgroup.procs; exec /bin/ul-unshare --cgroup sh -c \
  'exec /bin/pagelab run $S --repeat 1 --no-report --out /out/files/outside.json'" >/out/files/outside.out 2>&1
rc=$?
[ $rc = 3 ] && grep -q 'mounted outside it' /out/files/outside.out && [ -z "$(find $CG -maxdepth 1 -name 'pagelab-*')" ]
check outside-mount-refused $? "exit $rc: $(tail -1 /out/files/outside.out)"
rmdir $CG/ctr
