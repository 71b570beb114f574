/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stages.h — what the pipeline's files share (harness/run/ only; the public
 * interface is run.h). */
#ifndef PAGELAB_RUN_STAGES_H
#define PAGELAB_RUN_STAGES_H

#include "run.h"
#include "host/host.h"

/* resources.c: the knobs a host may take (root; swap = off, a reserve or
 * hugetlb pages that could starve it: destructive; hugetlb counts in checked
 * arithmetic against MemTotal), and the host's resources a run needs (free
 * space for swap and cache files, memory for tracing's ring buffers).
 * RUN_ENDED when all is well, else the refusal with err filled. */
enum run_end run_check_knobs(const struct run_opts *o, const struct host_facts *h, const struct run_spec *specs,
			     size_t nv, const char *name, struct lab_error *err);
enum run_end run_check_resources(const struct host_facts *h, const struct run_spec *specs, size_t nv,
				 const char *name, struct lab_error *err);

#endif
