/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_size.c — sizes, byte patterns and plain integers as scenarios and --set
 * write them (base/size.h), and the human-readable size format.
 *
 * Expected: binary multiples (K = 1024, as the kernel's memparse in
 * lib/cmdline.c reads "64K"), "B" and "iB" spellings, no sign, no fraction,
 * no blank, no "KB" (ambiguous), -ERANGE when the result needs more than 64
 * bits.  No fixture files are needed; argv[1] is accepted and ignored.
 */
#include <errno.h>
#include <stdint.h>

#include "base/size.h"
#include "unit.h"

static void accepts(const char *s, unsigned long long want)
{
	struct lab_error err = { 0 };
	unsigned long long got = 12345;
	int ret = lab_parse_size(s, &got, &err);

	if (ret != 0)
		fprintf(stderr, "lab_parse_size(\"%s\"): %s\n", s, err.msg);
	CHECK_EQ_U64(ret, 0);
	CHECK_EQ_U64(got, want);
}

/* Refused with the given errno, *bytes untouched, and a message quoting s. */
static void rejects(const char *s, int code)
{
	struct lab_error err = { 0 };
	unsigned long long got = 12345;
	int ret = lab_parse_size(s, &got, &err);

	CHECK_EQ_U64(ret, -code);
	CHECK_EQ_U64(err.code, code);
	CHECK_EQ_U64(got, 12345);
	CHECK(err.msg[0] != '\0');
	if (*s != '\0')
		CHECK(strstr(err.msg, s) != NULL);
}

static void test_parse_size(void)
{
	accepts("4096", 4096);
	accepts("4096B", 4096);
	accepts("0", 0);
	accepts("0B", 0);
	accepts("0G", 0);
	accepts("64K", 64ULL << 10);
	accepts("64k", 64ULL << 10);
	accepts("64KiB", 64ULL << 10);
	accepts("512M", 512ULL << 20);
	accepts("512m", 512ULL << 20);
	accepts("512MiB", 512ULL << 20);
	accepts("1G", 1ULL << 30);
	accepts("1g", 1ULL << 30);
	accepts("1GiB", 1ULL << 30);
	accepts("2T", 2ULL << 40);
	accepts("2TiB", 2ULL << 40);
	accepts("007M", 7ULL << 20);
	accepts("18446744073709551615", UINT64_MAX);
	accepts("18446744073709551615B", UINT64_MAX);
	accepts("16777215T", 16777215ULL << 40);        /* largest T that fits */
	accepts("17179869183G", 17179869183ULL << 30);

	rejects("", EINVAL);
	rejects("12XB", EINVAL);
	rejects("-1M", EINVAL);
	rejects("+1M", EINVAL);
	rejects("1.5G", EINVAL);
	rejects("1,5G", EINVAL);
	rejects(" 1G", EINVAL);
	rejects("1 G", EINVAL);
	rejects("1G ", EINVAL);
	rejects("1G\n", EINVAL);
	rejects("G", EINVAL);
	rejects("KiB", EINVAL);
	rejects("64KB", EINVAL);
	rejects("64Ki", EINVAL);
	rejects("64KiBB", EINVAL);
	rejects("64kib", EINVAL);
	rejects("64BB", EINVAL);
	rejects("1P", EINVAL);
	rejects("1G1", EINVAL);
	rejects("0x10", EINVAL);
	rejects("1e3", EINVAL);
	rejects("99999999999T", ERANGE);
	rejects("16777216T", ERANGE);                  /* exactly 2^64 */
	rejects("17179869184G", ERANGE);
	rejects("18446744073709551616", ERANGE);
	rejects("99999999999999999999999", ERANGE);
	rejects("99999999999999999999999K", ERANGE);
}

static void byte_ok(const char *s, unsigned int want)
{
	struct lab_error err = { 0 };
	unsigned int got = 999;

	CHECK_EQ_U64(lab_parse_byte(s, &got, &err), 0);
	CHECK_EQ_U64(got, want);
}

static void byte_bad(const char *s, int code)
{
	struct lab_error err = { 0 };
	unsigned int got = 999;

	CHECK_EQ_U64(lab_parse_byte(s, &got, &err), -code);
	CHECK_EQ_U64(err.code, code);
	CHECK_EQ_U64(got, 999);
}

static void test_parse_byte(void)
{
	byte_ok("0xA5", 0xA5);
	byte_ok("0xa5", 0xA5);
	byte_ok("0XA5", 0xA5);
	byte_ok("165", 165);
	byte_ok("0x5A", 0x5A);
	byte_ok("0", 0);
	byte_ok("0x0", 0);
	byte_ok("255", 255);
	byte_ok("0xff", 255);
	byte_ok("0x00ff", 255);

	byte_bad("", EINVAL);
	byte_bad("0x", EINVAL);
	byte_bad("0x0x5", EINVAL);
	byte_bad("0xg", EINVAL);
	byte_bad("A5", EINVAL);
	byte_bad("-1", EINVAL);
	byte_bad("+1", EINVAL);
	byte_bad(" 1", EINVAL);
	byte_bad("1 ", EINVAL);
	byte_bad("0xA5 ", EINVAL);
	byte_bad("1.0", EINVAL);
	byte_bad("256", ERANGE);
	byte_bad("0x100", ERANGE);
	byte_bad("99999999999999999999999", ERANGE);
	byte_bad("0xffffffffffffffffffff", ERANGE);
}

static void test_parse_uint(void)
{
	struct lab_error err = { 0 };
	unsigned long long v = 0;
	static const char *const bad[] = { "", "-1", "+1", " 11", "11 ", "11a", "1.0", "0x11", "1K" };
	size_t i;

	CHECK_EQ_U64(lab_parse_uint("11", &v, &err), 0);
	CHECK_EQ_U64(v, 11);
	CHECK_EQ_U64(lab_parse_uint("0", &v, &err), 0);
	CHECK_EQ_U64(v, 0);
	CHECK_EQ_U64(lab_parse_uint("18446744073709551615", &v, &err), 0);
	CHECK_EQ_U64(v, UINT64_MAX);
	CHECK_EQ_U64(lab_parse_uint("18446744073709551616", &v, &err), -ERANGE);
	CHECK_EQ_U64(err.code, ERANGE);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		lab_error_clear(&err);
		v = 7;
		CHECK_EQ_U64(lab_parse_uint(bad[i], &v, &err), -EINVAL);
		CHECK_EQ_U64(err.code, EINVAL);
	}
}

static void fmt(unsigned long long bytes, const char *want)
{
	char buf[32];

	CHECK_STR(lab_format_size(bytes, buf, sizeof(buf)), want);
}

static void test_format_size(void)
{
	char small[4];

	fmt(0, "0 B");
	fmt(123, "123 B");
	fmt(1023, "1023 B");
	fmt(1024, "1 KiB");
	fmt(4096, "4 KiB");
	fmt(1025, "1.0 KiB");                   /* not exact: never printed as "1 KiB" */
	fmt(1536, "1.5 KiB");
	fmt(512ULL << 20, "512 MiB");
	fmt(1ULL << 30, "1 GiB");
	fmt(3ULL << 29, "1.5 GiB");
	fmt((1ULL << 30) - 1, "1.0 GiB");       /* 1023.99 MiB rounds up a unit */
	fmt(700ULL << 20, "700 MiB");
	fmt(334ULL << 20, "334 MiB");
	fmt(2ULL << 40, "2 TiB");
	fmt(1ULL << 60, "1 EiB");
	fmt(UINT64_MAX, "16.0 EiB");
	/* Too small a buffer gives "", never a cut-off number. */
	CHECK_STR(lab_format_size(512ULL << 20, small, sizeof(small)), "");
	CHECK_STR(lab_format_size(5, small, sizeof(small)), "5 B");
	CHECK_STR(lab_format_size(5, small, 0), "");
}

/* Every size the parser accepts formats back to the same number of bytes
 * when it is a whole number of its unit. */
static void test_round_trip(void)
{
	static const char *const in[] = { "4096", "64K", "512M", "1G", "2T", "3G", "1536M" };
	static const char *const out[] = { "4 KiB", "64 KiB", "512 MiB", "1 GiB", "2 TiB",
					   "3 GiB", "1.5 GiB" };
	struct lab_error err = { 0 };
	unsigned long long b;
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		CHECK_EQ_U64(lab_parse_size(in[i], &b, &err), 0);
		CHECK_STR(lab_format_size(b, buf, sizeof(buf)), out[i]);
	}
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	test_parse_size();
	test_parse_byte();
	test_parse_uint();
	test_format_size();
	test_round_trip();
	return unit_report("size");
}
