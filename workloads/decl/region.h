/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decl/region.h — the region driver's step ids (workloads/decl/region.c). */
#ifndef PAGELAB_DECL_REGION_H
#define PAGELAB_DECL_REGION_H

enum region_step {
	ST_FILL, ST_ADVISE, ST_SERIES, ST_READBACK, ST_WRITE, ST_PRESSURE,
	ST_MINCORE, ST_SCAN, ST_HOLD, ST_SYSCALL, ST_DRAIN, ST_POKE, ST_POPULATE,
	ST_FRAGMENT, ST_FORK, ST_JOIN, ST_PAGEFLAGS,
};

#endif
