/* test_numbers.c — numbers read exactly or refused: strict decimal text
 * numbers (numparse.c), JSON integers read from their literal rather than
 * their double (json_util.c), JSON duplicate keys and NUL escapes by path
 * and position, budgets (units.c), and the checked memory sums. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "tests/unit/testutil.h"

#include "src/graph/graph.h"
#include "src/graph/json_util.h"
#include "src/base/numparse.h"
#include "src/base/units.h"

static void test_num_parse_int(void **st)
{
    (void)st;
    int64_t v = -1;
    assert_int_equal(num_parse_int("0", 10, &v), NUM_OK);
    assert_int_equal(v, 0);
    assert_int_equal(num_parse_int("9007199254740993", INT64_MAX, &v), NUM_OK);
    assert_true(v == 9007199254740993LL);
    assert_int_equal(num_parse_int("9223372036854775807", INT64_MAX, &v), NUM_OK);
    assert_true(v == INT64_MAX);
    assert_int_equal(num_parse_int("9223372036854775808", INT64_MAX, &v), NUM_RANGE);
    assert_int_equal(num_parse_int("99999999999999999999999", INT64_MAX, &v), NUM_RANGE);
    assert_int_equal(num_parse_int("9007199254740993", GRAPH_SIZE_MAX, &v), NUM_RANGE);
    assert_int_equal(num_parse_int("9007199254740992", GRAPH_SIZE_MAX, &v), NUM_OK);
    const char *bad[] = {"", "0x10", "-1", "+1", " 5", "5 ", "1.5", "1e3", "12ab", "inf"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(num_parse_int(bad[i], INT64_MAX, &v), NUM_SYNTAX);
}

static void test_num_parse_real(void **st)
{
    (void)st;
    double d = -1;
    assert_int_equal(num_parse_real("1e300", 1e300, &d), NUM_OK);
    assert_true(d == 1e300);
    assert_int_equal(num_parse_real("1.7e308", 1e300, &d), NUM_RANGE);
    assert_int_equal(num_parse_real("1e999", 1e300, &d), NUM_RANGE);
    assert_int_equal(num_parse_real(".5", 1e300, &d), NUM_OK);
    assert_true(d == 0.5);
    assert_int_equal(num_parse_real("5.", 1e300, &d), NUM_OK);
    assert_true(d == 5);
    assert_int_equal(num_parse_real("2.5E-3", 1e300, &d), NUM_OK);
    assert_true(d == 2.5e-3);
    const char *bad[] = {"", ".", "inf", "nan", "0x10", "-1", " 5", "1e", "1e+", "1.2.3", "5 "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(num_parse_real(bad[i], 1e300, &d), NUM_SYNTAX);
}

/* Read key "a" of a one-member object as an integer up to max. */
static int json_a(const char *text, int64_t max, int64_t *v, Err *e)
{
    err_clear(e);
    cJSON *root = json_parse(text, strlen(text), "t.json", e);
    if (!root)
        return -1;
    int rc = json_get_int(root, "a", -7, max, v, "t.json", "$", e);
    cJSON_Delete(root);
    return rc;
}

static void test_json_exact(void **st)
{
    (void)st;
    int64_t v;
    Err e;
    static const struct {
        const char *text;
        int64_t want;
    } ok[] = {
        {"{\"a\":9007199254740993}", 9007199254740993LL},
        {"{\"a\":9223372036854775807}", INT64_MAX},
        {"{\"a\":1e18}", 1000000000000000000LL},
        {"{\"a\":1.5e1}", 15},
        {"{\"a\":0.1e1}", 1},
        {"{\"a\":12.30e1}", 123},
        {"{\"a\":-0}", 0},
        {"{\"a\":3.0}", 3},
        {"{\"a\":4503599627370497e0}", 4503599627370497LL},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(json_a(ok[i].text, INT64_MAX, &v, &e), ERR_OK);
        assert_true(v == ok[i].want);
    }
    assert_int_equal(json_a("{\"b\":1}", INT64_MAX, &v, &e), ERR_OK);
    assert_int_equal(v, -7); /* missing: the default */
    assert_int_equal(json_a("{\"a\":1.0000000000000001}", INT64_MAX, &v, &e), ERR_INVALID);
    assert_string_equal(e.msg, "t.json: $.a: expected an integer, got 1.0000000000000001");
    assert_int_equal(json_a("{\"a\":4503599627370496.5}", INT64_MAX, &v, &e), ERR_INVALID);
    assert_int_equal(json_a("{\"a\":9223372036854775808}", INT64_MAX, &v, &e), ERR_INVALID);
    assert_string_equal(e.msg, "t.json: $.a: value 9223372036854775808 exceeds 2^63-1");
    assert_int_equal(json_a("{\"a\":1e19}", INT64_MAX, &v, &e), ERR_INVALID);
    assert_int_equal(json_a("{\"a\":9007199254740993}", JSON_EXACT_MAX, &v, &e), ERR_INVALID);
    assert_string_equal(e.msg, "t.json: $.a: value 9007199254740993 exceeds 2^53");
    assert_int_equal(json_a("{\"a\":-5}", INT64_MAX, &v, &e), ERR_INVALID);
    assert_string_equal(e.msg, "t.json: $.a: negative value -5");
    assert_int_equal(json_a("{\"a\":\"5\"}", INT64_MAX, &v, &e), ERR_INVALID);
}

static void test_json_refusals(void **st)
{
    (void)st;
    Err e;
    int64_t v;
    assert_int_equal(json_a("{\"x\":{\"a\":1,\"a\":2}}", INT64_MAX, &v, &e), -1);
    assert_string_equal(e.msg, "t.json: x: duplicate key 'a'");
    assert_int_equal(json_a("{\"n\":[{\"a\":1},{\"b\":1,\"b\":2}]}", INT64_MAX, &v, &e), -1);
    assert_string_equal(e.msg, "t.json: n[1]: duplicate key 'b'");
    /* past eight members the check goes through a hash map */
    assert_int_equal(json_a("{\"k1\":1,\"k2\":1,\"k3\":1,\"k4\":1,\"k5\":1,\"k6\":1,\"k7\":1,\"k8\":1,"
                            "\"k9\":1,\"k3\":1}",
                            INT64_MAX, &v, &e),
                     -1);
    assert_string_equal(e.msg, "t.json: $: duplicate key 'k3'");
    assert_int_equal(json_a("{\"a\":1,\n \"s\":\"x\\u0000y\"}", INT64_MAX, &v, &e), -1);
    assert_string_equal(e.msg, "t.json:2:8: invalid JSON: \\u0000 (NUL) inside a string");
    /* an escaped backslash before "u0000" is no NUL */
    assert_int_equal(json_a("{\"a\":2,\"s\":\"x\\\\u0000\"}", INT64_MAX, &v, &e), ERR_OK);
    assert_int_equal(v, 2);
}

static void test_budgets(void **st)
{
    (void)st;
    int64_t v;
    Err e;
    assert_int_equal(units_parse_bytes("9007199254740993", -1, &v, &e), ERR_OK);
    assert_true(v == 9007199254740993LL);
    assert_int_equal(units_parse_bytes("3GiB", -1, &v, &e), ERR_OK);
    assert_true(v == 3LL << 30);
    assert_int_equal(units_parse_bytes("8388607TiB", -1, &v, &e), ERR_OK);
    assert_int_equal(units_parse_bytes("8388608TiB", -1, &v, &e), ERR_USAGE);
    const char *bad[] = {"0x10", " 5", "inf", "-3", "nan", "", "B"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(units_parse_bytes(bad[i], 1000, &v, &e), ERR_USAGE);
}

static void test_bytes_add(void **st)
{
    (void)st;
    assert_true(bytes_add(1, 2) == 3);
    assert_true(bytes_add(INT64_MAX - 1, 5) == INT64_MAX);
    int64_t big = (int64_t)3 << 61;
    assert_true(bytes_add(big, big) == INT64_MAX);
    assert_true(bytes_add(big, -big) == 0);
}

TU_MAIN(TU_TEST(test_num_parse_int)
        TU_TEST(test_num_parse_real)
        TU_TEST(test_json_exact)
        TU_TEST(test_json_refusals)
        TU_TEST(test_budgets)
        TU_TEST(test_bytes_add))
