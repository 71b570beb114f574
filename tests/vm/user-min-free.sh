#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# user-min-free.sh — run INSIDE a pagelab QEMU guest (guest/vm-run): what a user write of
# vm.min_free_kbytes does to the kernel's own recomputations (user_min_free_kbytes,
# mm/page_alloc.c: calculate_min_free_kbytes; mm/khugepaged.c:
# set_recommended_min_free_kbytes).  Never on a borrowed host: a write pins
# user_min_free_kbytes until reboot.  One "N label: min_free_kbytes=V" line per step, then
# the kernel's own log lines; tests/bats/watermarks-vm.bats asserts on them.
t=/sys/kernel/mm/transparent_hugepage/enabled
p() { echo "$1: min_free_kbytes=$(cat /proc/sys/vm/min_free_kbytes) thp=$(cat $t)"; }
uname -r
echo always > $t
p "0 boot"
echo never > $t; p "1 thp never, no user write yet"
echo always > $t; p "2 thp always"
echo 45056 > /proc/sys/vm/min_free_kbytes; p "3 user wrote 45056"
echo never > $t; p "4 thp never after user 45056"
echo always > $t; p "5 thp always after user 45056"
echo 128 > /proc/sys/vm/min_free_kbytes; p "6 user wrote 128"
echo never > $t; p "7 thp never after user 128"
echo madvise > $t; p "8 thp madvise after user 128"
echo 67584 > /proc/sys/vm/min_free_kbytes; p "9 user wrote 67584 back"
echo never > $t; p "10 thp never after user 67584"
echo always > $t; p "11 thp always"
dmesg | grep -E "min_free_kbytes"
