# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/lib.sh — what the developer scripts share: messages, usage, the memory
# cgroup this shell stands in, and the benchmarks' measures.  Sourced, never run:
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"          (scripts/*)
#   . "$TOP/scripts/lib.sh"                             (tests/bats/helpers.bash, tests/tools/*)
#
# Only functions: sourcing it sets no shell option and changes no variable
# but LAB_MEMCG_* (when asked).  PROG names the script in messages (default:
# its file name); a script may redefine say() (container-ci adds its engine).

# say MESSAGE...: one line on stderr, "PROG: MESSAGE".
say() { printf '%s: %s\n' "${PROG:-${0##*/}}" "$*" >&2; }

# die MESSAGE...: say it, exit 1 (a measurement or a step failed).
die() { say "$*"; exit 1; }

# bad MESSAGE...: say it with a pointer to --help, exit 2 (bad usage).
bad() { say "$* (see $0 --help)"; exit 2; }

# usage [FILE]: the script's header comment, its --help: from the third line
# (after the shebang and the SPDX line) to the first line that is not a
# comment, with "# " taken off.
usage() {
	sed -n '3,/^[^#]/{/^[^#]/d;s/^# \{0,1\}//;p}' "${1:-$0}"
}

# lab_cpu_ns PID: every thread's CPU time so far (sum_exec_runtime, ns:
# /proc/PID/task/*/schedstat's first field), as the benchmarks measure the
# harness from outside.
lab_cpu_ns() {
	local f a s=0
	for f in /proc/"$1"/task/*/schedstat; do read -r a _ <"$f" 2>/dev/null || continue; s=$((s + a)); done
	echo "$s"
}

# lab_median: the median of the numbers on stdin, one a line ("nan": none).
lab_median() {
	sort -g | awk '{ a[NR] = $1 } END { if (!NR) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# lab_cpu_jiffies: /proc/stat's cpu line as "BUSY IDLE STEAL" jiffies, to say
# how busy the machine was over a measurement.
lab_cpu_jiffies() {
	local _cpu user nice system idle iowait irq softirq steal _rest
	read -r _cpu user nice system idle iowait irq softirq steal _rest </proc/stat
	echo "$((user + nice + system + irq + softirq)) $((idle + iowait)) $steal"
}

# lab_own_memcg: find the memory cgroup this shell stands in.  Sets
#   LAB_MEMCG_VERSION  v1 or v2
#   LAB_MEMCG_REL      its path in its hierarchy ("/a/b"; "" for the root), as
#                      an engine's --cgroup-parent takes it
#   LAB_MEMCG_DIR      its directory (the hierarchy's mount point + LAB_MEMCG_REL)
# and returns 0; 1 when there is none.  v1 when a hierarchy has the memory
# controller ("N:memory:/path" in /proc/self/cgroup), else the unified one
# ("0::/path"), each only when its directory exists.  In a container without a cgroup namespace the mount shows only
# the container's own group (mountinfo's root field, $4) while
# /proc/self/cgroup prints the whole path: that root is taken off.  Reads
# /proc/self/cgroup and /proc/self/mountinfo only (pagelab's own C version is
# harness/sandbox/: the harness does not run this).
lab_own_memcg() {
	local p root mnt v

	for v in v1 v2; do
		if [ "$v" = v1 ]; then
			p=$(sed -n 's/^[0-9]*:[^:]*\bmemory\b[^:]*:\(.*\)$/\1/p' /proc/self/cgroup)
			read -r root mnt < <(awk '/ - cgroup / && $NF ~ /(^|,)memory(,|$)/ { print $4, $5; exit }' /proc/self/mountinfo)
		else
			p=$(sed -n 's/^0::\(.*\)$/\1/p' /proc/self/cgroup)
			read -r root mnt < <(awk '/ - cgroup2 / { print $4, $5; exit }' /proc/self/mountinfo)
		fi
		[ -n "$p" ] && [ -n "$mnt" ] || continue
		if [ -n "$root" ] && [ "$root" != / ]; then
			case $p in "$root") p= ;; "$root"/*) p=${p#"$root"} ;; esac
		fi
		p=${p%/}
		[ -d "$mnt$p" ] || continue
		LAB_MEMCG_VERSION=$v LAB_MEMCG_REL=$p LAB_MEMCG_DIR=$mnt$p
		return 0
	done
	return 1
}

# lab_own_cgroup_in MOUNT: this shell's own cgroup path in the hierarchy
# mounted at MOUNT ("/a/b", "" for the root), from /proc/self/cgroup and the
# mount's controllers (v1: its super options name them, e.g. "rw,cpu"; v2:
# the "0::" line).  Prints nothing when the hierarchy is not found.  A clean
# must never remove this directory or any directory above it: they are the
# machine's, not ours.
lab_own_cgroup_in() {
	local mnt=$1 line root opts ctrls p
	line=$(awk -v m="$mnt" '$5 == m && / - cgroup2? / { print $4 " " $(NF-2) " " $NF; exit }' /proc/self/mountinfo)
	[ -n "$line" ] || return 0
	root=${line%% *}
	case $line in
	*" cgroup2 "*) p=$(sed -n 's/^0::\(.*\)$/\1/p' /proc/self/cgroup) ;;
	*)
		opts=${line##* }
		ctrls=$(echo "$opts" | tr ',' '\n' | grep -v -e '^rw$' -e '^ro$' -e '^relatime$' -e '^noexec$' -e '^nosuid$' -e '^nodev$' | sort | paste -sd, -)
		p=$(awk -F: -v want="$ctrls" '$1 != 0 { n = split($2, a, ","); s = ""; for (i = 1; i <= n; i++) b[i] = a[i];
			# the controllers of this line, sorted as those of the mount are
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
			for (i = 1; i <= n; i++) s = s (i > 1 ? "," : "") b[i]
			if (s == want) { sub(/^[^:]*:[^:]*:/, ""); print; exit } }' /proc/self/cgroup) ;;
	esac
	if [ -n "$root" ] && [ "$root" != / ]; then
		case $p in "$root") p= ;; "$root"/*) p=${p#"$root"} ;; esac
	fi
	printf '%s\n' "${p%/}"
}

