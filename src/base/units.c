/* units.c — parsing and printing byte amounts. */
#include "src/base/units.h"

#include "src/base/numparse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *suffix;
    double mult;
} suffixes[] = {
    {"", 1},           {"B", 1},          {"KiB", 1024.0},   {"MiB", 1048576.0},
    {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}, {"KB", 1e3}, {"kB", 1e3},
    {"MB", 1e6},       {"GB", 1e9},       {"TB", 1e12},      {"k", 1024.0},
    {"K", 1024.0},     {"M", 1048576.0},  {"G", 1073741824.0}, {"T", 1099511627776.0},
};

int units_parse_bytes(const char *s, int64_t whole, int64_t *out, Err *e)
{
    /* the number: plain decimal (no hex, "inf", sign or leading blanks),
     * digits[.digits][e[+-]digits], then the unit */
    const char *p = s;
    int nd = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        nd++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            nd++;
    if (nd && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1 + (p[1] == '+' || p[1] == '-');
        if (*q >= '0' && *q <= '9') {
            for (p = q; *p >= '0' && *p <= '9'; p++)
                ;
        }
    }
    double v = 0;
    char num[64];
    size_t nl = (size_t)(p - s);
    if (!nd || nl >= sizeof num)
        return err_set(e, ERR_USAGE, "'%s': expected a non-negative decimal amount such as 512MiB or 60%%", s);
    memcpy(num, s, nl);
    num[nl] = '\0';
    if (num_parse_real(num, 1e300, &v))
        return err_set(e, ERR_USAGE, "'%s': amount too large", s);
    const char *end = p;
    while (*end == ' ')
        end++;
    double bytes;
    if (strcmp(end, "%") == 0) {
        if (whole < 0)
            return err_set(e, ERR_USAGE, "'%s': a percentage needs a reference amount", s);
        bytes = v / 100.0 * (double)whole;
    } else {
        size_t i;
        for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
            if (strcmp(end, suffixes[i].suffix) == 0)
                break;
        if (i == sizeof suffixes / sizeof suffixes[0])
            return err_set(e, ERR_USAGE,
                           "'%s': unknown unit '%s' (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB or %%)",
                           s, end);
        bytes = v * suffixes[i].mult;
        /* whole numbers are read exactly: 9007199254740993 stays itself */
        int64_t iv;
        int64_t m = (int64_t)suffixes[i].mult;
        if (num_parse_int(num, INT64_MAX, &iv) == NUM_OK) {
            if (iv > INT64_MAX / m)
                return err_set(e, ERR_USAGE, "'%s': amount too large", s);
            *out = iv * m;
            return ERR_OK;
        }
    }
    if (bytes > 9.2e18)
        return err_set(e, ERR_USAGE, "'%s': amount too large", s);
    *out = (int64_t)floor(bytes);
    return ERR_OK;
}

void units_format_bytes(int64_t b, char *buf, size_t n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)b;
    int u = 0;
    while (fabs(v) >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%lld B", (long long)b);
    else if (fabs(v) >= 100)
        snprintf(buf, n, "%.0f %s", v, unit[u]);
    else if (fabs(v) >= 10)
        snprintf(buf, n, "%.1f %s", v, unit[u]);
    else
        snprintf(buf, n, "%.2f %s", v, unit[u]);
}
