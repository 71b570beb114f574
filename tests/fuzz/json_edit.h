/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json_edit.h — the structural mutator the JSON-reading fuzzers share
 * (fuzz_result, fuzz_tables): a fuzz input that is not itself JSON is read
 * as up to 32 edits of a real document — each two bytes pick a value of the
 * document (depth first) and what replaces it: null, true, -1, 1e308, an
 * empty string or one with a newline and a control byte (a refusal naming it
 * must stay one line), an empty array or object, a huge integer, a copy of
 * another value of the document, or nothing (the value removed). */
#ifndef PAGELAB_FUZZ_JSON_EDIT_H
#define PAGELAB_FUZZ_JSON_EDIT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct json_edit_node {
	json_t *parent;
	const char *key;        /* NULL: an array element */
	size_t index;
};

static void json_edit_collect(json_t *j, struct json_edit_node *nodes, size_t *n, size_t max)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach(j, k, v) {
			if (*n < max)
				nodes[(*n)++] = (struct json_edit_node){ j, k, 0 };
			json_edit_collect(v, nodes, n, max);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			if (*n < max)
				nodes[(*n)++] = (struct json_edit_node){ j, NULL, i };
			json_edit_collect(v, nodes, n, max);
		}
	}
}

static json_t *json_edit_value(const struct json_edit_node *x)
{
	return x->key != NULL ? json_object_get(x->parent, x->key) : json_array_get(x->parent, x->index);
}

/* Apply the edits data[from..size) spells to doc, in place; returns doc. */
static json_t *json_edit(json_t *doc, const uint8_t *data, size_t size, size_t from)
{
	static struct json_edit_node nodes[8192];

	for (size_t b = from; doc != NULL && b + 1 < size && b < from + 64; b += 2) {
		size_t n = 0;
		struct json_edit_node *x;
		json_t *v;

		json_edit_collect(doc, nodes, &n, sizeof(nodes) / sizeof(nodes[0]));
		if (n == 0)
			break;
		x = &nodes[((size_t)data[b] * 131u + (size_t)data[b + 1] * 7u + b) % n];
		switch (data[b + 1] % 11) {
		case 0: v = json_null(); break;
		case 1: v = json_true(); break;
		case 2: v = json_integer(-1); break;
		case 3: v = json_real(1e308); break;
		case 4: v = json_string(data[b] & 1 ? "" : "a\nb\x01"); break;
		case 5: v = json_array(); break;
		case 6: v = json_object(); break;
		case 7: v = json_integer((json_int_t)data[b] << 40); break;
		case 8:
		case 9:
			v = json_deep_copy(json_edit_value(&nodes[((size_t)data[b] * 31u + (size_t)data[b + 1]) % n]));
			break;
		default: v = NULL; break;       /* removed */
		}
		if (x->key != NULL) {
			if (v != NULL)
				json_object_set_new(x->parent, x->key, v);
			else
				json_object_del(x->parent, x->key);
		} else if (v != NULL) {
			json_array_set_new(x->parent, x->index, v);
		} else {
			json_array_remove(x->parent, x->index);
		}
	}
	return doc;
}

#endif
