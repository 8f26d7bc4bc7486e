/* units.h — byte amounts in and out: "512MiB", "2GiB", "1.5GB", "60%". */
#ifndef REMAT_UNITS_H
#define REMAT_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "src/base/err.h"

/* Parse BYTES with an optional suffix (B, KiB, MiB, GiB, TiB; KB, MB, GB, TB
 * decimal; k/K, M, G, T binary) or PCT% of `whole`. Fractions allowed
 * ("1.5GiB"); the result is rounded down to whole bytes. ERR_USAGE with a
 * message quoting the text on failure. */
int units_parse_bytes(const char *s, int64_t whole, int64_t *out, Err *e);

/* "1.50 MiB", "512 B": at most 3 significant decimals, binary prefixes. */
void units_format_bytes(int64_t b, char *buf, size_t n);

/* "s" when n things are not one: "%d step%s", n, plural_s(n). */
static inline const char *plural_s(long long n)
{
    return n == 1 ? "" : "s";
}

#endif
