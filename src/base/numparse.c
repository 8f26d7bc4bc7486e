/* numparse.c — strict decimal integers and numbers (see numparse.h). */
#include "src/base/numparse.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"

static int digit(char c)
{
    return c >= '0' && c <= '9';
}

int num_parse_int(const char *s, int64_t max, int64_t *out)
{
    if (!digit(*s))
        return NUM_SYNTAX;
    int64_t v = 0;
    int over = 0;
    for (; digit(*s); s++) {
        int d = *s - '0';
        if (over || d > max || v > (max - d) / 10)
            over = 1;
        else
            v = v * 10 + d;
    }
    if (*s)
        return NUM_SYNTAX;
    if (over)
        return NUM_RANGE;
    *out = v;
    return NUM_OK;
}

int num_parse_real(const char *s, double max, double *out)
{
    const char *p = s;
    int nd = 0;
    for (; digit(*p); p++)
        nd++;
    if (*p == '.')
        for (p++; digit(*p); p++)
            nd++;
    if (!nd)
        return NUM_SYNTAX;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!digit(*p))
            return NUM_SYNTAX;
        while (digit(*p))
            p++;
    }
    if (*p)
        return NUM_SYNTAX;
    /* the text is now a plain decimal number; strtod follows the locale's
     * decimal point (the explorer sets LC_ALL), so hand it that one */
    double d;
    char dp = localeconv()->decimal_point[0];
    if (dp == '.' || !strchr(s, '.')) {
        d = strtod(s, NULL);
    } else {
        char *c = xstrdup(s);
        *strchr(c, '.') = dp;
        d = strtod(c, NULL);
        free(c);
    }
    if (!(d <= max))
        return NUM_RANGE;
    *out = d;
    return NUM_OK;
}
