/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decl/list.h — every workload program, one line each (workloads/decl/NAME.c). */
WL(region)
WL(hold)
WL(lazyscan)
WL(stepper)
WL(cachefill)
WL(allocs)
WL(goalloc)
WL(reclaimer)
