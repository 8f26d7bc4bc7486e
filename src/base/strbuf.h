/* strbuf.h — a growable string built with printf formats (the DOT writer
 * and the export drawing build their text with it). */
#ifndef REMAT_STRBUF_H
#define REMAT_STRBUF_H

#include <stddef.h>

typedef struct StrBuf {
    char *s;        /* always NUL-terminated */
    size_t n, cap;
} StrBuf;

/* An empty string with room for cap bytes. */
void sb_init(StrBuf *b, size_t cap);
/* Append printf-formatted text. */
void sb_put(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
