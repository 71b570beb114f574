/* SPDX-License-Identifier: GPL-2.0-or-later */
/* size.h — sizes and byte patterns as people write them in scenarios and --set. */
#ifndef PAGELAB_SIZE_H
#define PAGELAB_SIZE_H

#include "error.h"

/* "4096", "64K", "512M", "1G", "2T", also "64KiB", "512MiB", "1GiB" and
 * "64k"/"512m"; binary multiples (K = 1024).  A plain "B" suffix is allowed
 * ("4096B").  No sign, no fraction, no spaces, no overflow.  0 is accepted
 * here: whether zero is allowed is the caller's rule.
 * Returns 0, or -EINVAL / -ERANGE with err saying what is wrong with s. */
int lab_parse_size(const char *s, unsigned long long *bytes, struct lab_error *err);

/* A byte pattern: "0xA5", "0xa5", "165".  Range 0..255. */
int lab_parse_byte(const char *s, unsigned int *byte, struct lab_error *err);

/* A non-negative decimal integer with end check ("11"). */
int lab_parse_uint(const char *s, unsigned long long *val, struct lab_error *err);

/* Format bytes for humans into buf: "512 MiB", "1 GiB", "1.5 GiB", "4 KiB", "123 B".
 * Inexact values get one rounded decimal ("1.0 GiB" for 1 GiB - 1).  Returns buf,
 * or "" when buf is too small (32 bytes always suffice). */
const char *lab_format_size(unsigned long long bytes, char *buf, size_t len);

#endif
