/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smaps.c — /proc/PID/smaps, summed over the VMAs inside one address range.
 *
 * The format is fs/proc/task_mmu.c: show_map_vma prints the header
 * "start-end perms offset dev inode [path]" and show_smap / __show_smap the
 * "Key:   value kB" lines (SEQ_PUT_DEC), then "THPeligible:", "ProtectionKey:"
 * and "VmFlags: rd wr ..." which are not sizes and are skipped.
 */
#include "smaps.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "lex.h"

/* The keys summed; the index is the bit in struct vma_state.seen. */
enum {
	K_SIZE, K_RSS, K_LAZYFREE, K_ANONHUGE, K_ANONYMOUS, K_SHMEM_PMD, K_SWAP, K_COUNT
};

static const char *const key_names[K_COUNT] = {
	[K_SIZE] = "Size",
	[K_RSS] = "Rss",
	[K_LAZYFREE] = "LazyFree",
	[K_ANONHUGE] = "AnonHugePages",
	[K_ANONYMOUS] = "Anonymous",
	[K_SHMEM_PMD] = "ShmemPmdMapped",
	[K_SWAP] = "Swap",
};

struct vma_state {
	bool open;                      /* a header has been seen */
	bool inside;                    /* that VMA lies inside [start, end) */
	size_t header_line;
	unsigned long vstart, vend;
	unsigned int seen;              /* bit per key, to catch a repeated line */
};

static unsigned long long *field_of(struct smaps_range *out, int k)
{
	switch (k) {
	case K_SIZE: return &out->size_kb;
	case K_RSS: return &out->rss_kb;
	case K_LAZYFREE: return &out->lazyfree_kb;
	case K_ANONHUGE: return &out->anonhuge_kb;
	case K_ANONYMOUS: return &out->anonymous_kb;
	case K_SHMEM_PMD: return &out->shmem_pmd_kb;
	default: return &out->swap_kb;
	}
}

/* A hex address starting right at p, as show_map_vma prints it (%08lx). */
static int parse_addr(const char *p, unsigned long *addr, const char **end)
{
	unsigned long long v;

	if (lex_u64(p, 16, &v, end) < 0 || v > ULONG_MAX)
		return -EINVAL;
	*addr = (unsigned long)v;
	return 0;
}

/* Close the current VMA: one inside the range must have printed its size and
 * resident lines, or the buffer was cut off. */
static int vma_close(struct vma_state *v, struct smaps_range *out, struct lab_error *err)
{
	if (!v->open || !v->inside)
		return 0;
	if (!(v->seen & (1u << K_SIZE)) || !(v->seen & (1u << K_RSS)))
		return lab_error_set(err, EINVAL,
				     "line %zu: VMA %lx-%lx has no %s line (truncated smaps?)",
				     v->header_line, v->vstart, v->vend,
				     !(v->seen & (1u << K_SIZE)) ? "Size" : "Rss");
	out->nr_vmas++;
	return 0;
}

static int vma_open(const char *p, const char *eol, size_t lineno, unsigned long start,
		    unsigned long end, struct vma_state *v, struct lab_error *err)
{
	const char *q;

	if (parse_addr(p, &v->vstart, &q) < 0 || *q != '-' ||
	    parse_addr(q + 1, &v->vend, &q) < 0 || q >= eol || !lex_is_blank(*q))
		return lab_error_set(err, EINVAL,
				     "line %zu: expected a VMA header 'start-end perms ...' or 'Key: value', got '%.*s'",
				     lineno, (int)(eol - p > 60 ? 60 : eol - p), p);
	if (v->vend <= v->vstart)
		return lab_error_set(err, EINVAL, "line %zu: VMA %lx-%lx ends before it starts",
				     lineno, v->vstart, v->vend);
	v->open = true;
	v->header_line = lineno;
	v->seen = 0;
	v->inside = v->vstart >= start && v->vend <= end;
	if (!v->inside && v->vstart < end && v->vend > start)
		return lab_error_set(err, EINVAL,
				     "line %zu: VMA %lx-%lx straddles the %s of the range %lx-%lx (merged with a neighbour?)",
				     lineno, v->vstart, v->vend, v->vstart < start ? "start" : "end",
				     start, end);
	return 0;
}

/* "Key:   value kB" for a key we sum; value must be exactly that shape. */
static int add_key(const char *p, const char *eol, size_t keylen, size_t lineno,
		   struct vma_state *v, struct smaps_range *out, struct lab_error *err)
{
	unsigned long long val, *field;
	const char *q, *e;
	int k, ret;

	for (k = 0; k < K_COUNT; k++)
		if (strlen(key_names[k]) == keylen && memcmp(p, key_names[k], keylen) == 0)
			break;
	if (k == K_COUNT)
		return 0;
	if (v->seen & (1u << k))
		return lab_error_set(err, EINVAL, "line %zu: second %s line in VMA %lx-%lx",
				     lineno, key_names[k], v->vstart, v->vend);
	v->seen |= 1u << k;
	if (k == K_LAZYFREE)
		out->has_lazyfree = 1;
	q = lex_skip_blanks(p + keylen + 1, eol);
	ret = lex_u64(q, 10, &val, &e);
	if (ret == -ERANGE)
		return lab_error_set(err, EINVAL, "line %zu: %s does not fit in 64 bits",
				     lineno, key_names[k]);
	if (ret < 0)
		return lab_error_set(err, EINVAL, "line %zu: %s is not a number: '%.*s'",
				     lineno, key_names[k], (int)(eol - q > 40 ? 40 : eol - q), q);
	q = e;
	if (!(q + 3 == eol && q[0] == ' ' && q[1] == 'k' && q[2] == 'B'))
		return lab_error_set(err, EINVAL, "line %zu: %s value not followed by ' kB': '%.*s'",
				     lineno, key_names[k], (int)(eol - q > 40 ? 40 : eol - q), q);
	field = field_of(out, k);
	if (*field + val < *field)
		return lab_error_set(err, EINVAL, "line %zu: sum of %s overflows", lineno,
				     key_names[k]);
	*field += val;
	return 0;
}

int smaps_parse_range(const char *buf, unsigned long start, unsigned long end,
		      struct smaps_range *out, struct lab_error *err)
{
	struct vma_state v = { 0 };
	const char *p = buf;
	size_t lineno = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if (start >= end)
		return lab_error_set(err, EINVAL, "empty address range %lx-%lx", start, end);
	while (*p != '\0') {
		const char *eol = lex_line_end(p), *q;

		lineno++;
		if (eol == p)
			goto next;
		for (q = p; q < eol && !lex_is_blank(*q); q++)
			;
		if (q > p && q[-1] == ':') {
			if (!v.open) {
				ret = lab_error_set(err, EINVAL,
						    "line %zu: '%.*s' before any VMA header",
						    lineno, (int)(q - p > 40 ? 40 : q - p), p);
				goto fail;
			}
			if (!v.inside)
				goto next;
			ret = add_key(p, eol, (size_t)(q - p - 1), lineno, &v, out, err);
		} else {
			ret = vma_close(&v, out, err);
			if (ret == 0)
				ret = vma_open(p, eol, lineno, start, end, &v, err);
		}
		if (ret < 0)
			goto fail;
next:
		p = lex_next_line(eol);
	}
	ret = vma_close(&v, out, err);
	if (ret < 0)
		goto fail;
	if (out->nr_vmas == 0)
		return lab_error_set(err, ENOENT, "no VMA lies inside %lx-%lx", start, end);
	return 0;
fail:
	/* Half a sum is worse than none: a caller that ignores the error reads zeros. */
	memset(out, 0, sizeof(*out));
	return ret;
}
