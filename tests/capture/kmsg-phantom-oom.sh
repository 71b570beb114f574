#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/capture/kmsg-phantom-oom.sh KERNEL [OUTDIR] — boot a guest (guest/vm-run) with
# KERNEL (6.1, 6.12 or a vmlinuz path), run kmsg-phantom-oom.c in it, and leave the
# records it captured in OUTDIR/files/phantom-oom.kmsg (default: a new temporary
# directory, printed). Boots QEMU: run it under flock /tmp/pagelab-heavy.lock.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kernel=${1:?usage: kmsg-phantom-oom.sh KERNEL [OUTDIR]}
out=${2:-$(mktemp -d)}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
gcc -static -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2 \
	-o "$bin/kmsg-phantom-oom" "$root/tests/capture/kmsg-phantom-oom.c"
"$root/guest/vm-run" --kernel "$kernel" --mem 512M --cpus 1 --timeout 300 --build none \
	--bin "$bin/kmsg-phantom-oom" --out "$out" -- /bin/kmsg-phantom-oom
echo "$out/files/phantom-oom.kmsg"
