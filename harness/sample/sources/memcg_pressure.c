/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memcg_pressure.c — source "memcg_pressure": the sandbox's own memory
 * pressure, cgroup v2 memory.pressure (the same lines as
 * /proc/pressure/memory, kernel/sched/psi.c, for the tasks of the group):
 * {"some": {"avg10", "avg60", "avg300", "total_us"}, "full": {…}}.
 * v1 has no such file.  O(1): every tick. */
#include "source.h"

#include "base/fileio.h"

int source_psi_parse(const char *buf, size_t len, json_t **out, struct lab_error *err);
int source_psi_emit(const char *buf, struct jw *w, struct lab_error *err);

static int memcg_pressure_emit(struct source_ctx *ctx, void *state, struct jw *w, struct lab_error *err)
{
	const char *buf;
	int ret;

	(void)state;
	if ((ret = source_read_sandbox(ctx, "memory.pressure", &buf, err)) < 0)
		return ret;
	return source_psi_emit(buf, w, err);
}

static int memcg_pressure_open(struct source_ctx *ctx, void *state, struct lab_error *err)
{
	struct jw w = { 0 };
	int ret = memcg_pressure_emit(ctx, state, &w, err);

	jw_free(&w);
	return ret;
}

const struct source source_memcg_pressure = {
	.name = "memcg_pressure",
	.where = SOURCE_CG_V2,
	.cadence = SOURCE_TICK,
	.files = "memory.pressure",
	.fixture = "memcg-memory.pressure",
	.doc = "the sandbox's memory PSI (v2 memory.pressure): some/full avg10, avg60, avg300 (%) and total_us",
	.parse = source_psi_parse,
	.open = memcg_pressure_open,
	.emit = memcg_pressure_emit,
};
