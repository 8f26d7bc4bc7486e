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

/* Append printf-formatted text to the fixed buffer buf (cap bytes) at
 * *used, cutting what does not fit: *used never passes cap - 1, so the
 * next call is safe however long an id was. For one-line messages. */
void fb_put(char *buf, size_t cap, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
