#include <string.h>

#include "util/strutil.h"
#include "t/unit/tap.h"

int main(void)
{
	char buf[8];

	ok(golden_strlcpy(buf, "abc", sizeof(buf)) == 0, "strlcpy fits");
	is(buf, "abc", "copied");
	ok(golden_strlcpy(buf, "abcdefghij", sizeof(buf)) < 0, "strlcpy reports truncation");
	is(buf, "abcdefg", "truncated and terminated");
	strcpy(buf, "ab");
	ok(golden_strlcat(buf, "cd", sizeof(buf)) == 0, "strlcat fits");
	is(buf, "abcd", "appended");
	ok(golden_strlcat(buf, "efghij", sizeof(buf)) < 0, "strlcat reports truncation");

	ok(golden_natcmp("mlx5_2", "mlx5_10") < 0, "mlx5_2 before mlx5_10");
	ok(golden_natcmp("mlx5_10", "mlx5_9") > 0, "mlx5_10 after mlx5_9");
	ok(golden_natcmp("eth1", "eth1") == 0, "equal");
	ok(golden_natcmp("eth1", "eth10") < 0, "eth1 before eth10");
	ok(golden_natcmp("ib", "ib0") < 0, "prefix first");
	ok(golden_natcmp("a01", "a1") == 0, "leading zeros ignored");

	ok(golden_is_safe_name("hgx-h100_ib.v2", 64), "safe name");
	ok(!golden_is_safe_name("../x", 64), "slash refused");
	ok(!golden_is_safe_name("a b", 64), "space refused");
	ok(!golden_is_safe_name("", 64), "empty refused");
	ok(!golden_is_safe_name("abcdef", 3), "too long refused");

	ok(golden_fnv1a("") == 2166136261u, "fnv1a offset basis");
	ok(golden_fnv1a("a") == 0xe40c292cu, "fnv1a of 'a'");
	ok(golden_list_has("rw,noatime,lazytime", ',', "noatime"), "list_has: middle word");
	ok(golden_list_has("ro,relatime", ',', "ro"), "list_has: first word");
	ok(!golden_list_has("rw,relatime", ',', "ro"), "list_has: no 'ro' inside 'relatime'");
	ok(!golden_list_has("cpuset cpu iommu memory", ' ', "io"), "list_has: 'io' is not 'iommu'");
	ok(golden_list_has("cpuset cpu io memory\n", ' ', "memory"),
	   "list_has: last word, newline");
	ok(!golden_list_has("a b", ' ', ""), "list_has: empty item never matches");
	{
		char p1[] = "/lustre//", p2[] = "/", p3[] = "//", p4[] = "/a/b";

		is(golden_strip_slashes(p1), "/lustre", "strip_slashes: trailing slashes go");
		is(golden_strip_slashes(p2), "/", "strip_slashes: / stays /");
		is(golden_strip_slashes(p3), "/", "strip_slashes: // is /");
		is(golden_strip_slashes(p4), "/a/b", "strip_slashes: inner slashes stay");
	}
	{
		long long v = 7;
		int i = 7;

		ok(golden_parse_ll("42", 0, 100, &v) == 0 && v == 42, "parse_ll: 42");
		ok(golden_parse_ll("0", 0, 100, &v) == 0 && v == 0, "parse_ll: 0");
		ok(golden_parse_ll("100", 0, 100, &v) == 0 && v == 100, "parse_ll: max itself");
		v = 7;
		ok(golden_parse_ll("101", 0, 100, &v) < 0 && v == 7,
		   "parse_ll: above max, nothing written");
		ok(golden_parse_ll("9", 10, 100, &v) < 0, "parse_ll: below min");
		ok(golden_parse_ll("\n-2", 0, 100, &v) < 0,
		   "parse_ll: white space and a sign refused");
		ok(golden_parse_ll(" 5", 0, 100, &v) < 0, "parse_ll: leading space refused");
		ok(golden_parse_ll("+5", 0, 100, &v) < 0, "parse_ll: '+' refused");
		ok(golden_parse_ll("-0", -5, 100, &v) < 0, "parse_ll: '-' refused");
		ok(golden_parse_ll("5 ", 0, 100, &v) < 0, "parse_ll: trailing text refused");
		ok(golden_parse_ll("", 0, 100, &v) < 0, "parse_ll: empty refused");
		ok(golden_parse_ll("99999999999999999999", 0, 100, &v) < 0,
		   "parse_ll: overflow refused");
		ok(golden_parse_int("600000", 10, 600000, &i) == 0 && i == 600000,
		   "parse_int: in range");
		ok(golden_parse_int("3000000000", 0, 2147483647, &i) < 0,
		   "parse_int: beyond int refused");
	}
	return done_testing();
}
