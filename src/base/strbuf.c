/* strbuf.c — a growable printf string (see strbuf.h). */
#include "src/base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>

#include "src/base/xalloc.h"

void sb_init(StrBuf *b, size_t cap)
{
    b->cap = cap ? cap : 64;
    b->s = xmalloc(b->cap);
    b->s[0] = '\0';
    b->n = 0;
}

void fb_put(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    if (!cap || *used >= cap - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (w > 0)
        *used = *used + (size_t)w < cap - 1 ? *used + (size_t)w : cap - 1;
}

void sb_put(StrBuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int w = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (w >= 0 && (size_t)w < b->cap - b->n) {
            b->n += (size_t)w;
            return;
        }
        b->cap = b->cap * 2 + (size_t)(w > 0 ? w : 64);
        b->s = xrealloc(b->s, b->cap);
    }
}
