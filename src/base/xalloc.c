/* xalloc.c — allocation wrappers that abort on exhaustion or overflow. */
#include "src/base/xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
    fprintf(stderr, "remat: out of memory (asked for %zu bytes)\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        oom(count * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

void *xmallocarray(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        oom(SIZE_MAX);
    return xmalloc(count * size);
}

void *xreallocarray(void *p, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        oom(SIZE_MAX);
    return xrealloc(p, count * size);
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xmalloc(n);
    memcpy(d, s, n);
    return d;
}

void xgrow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return;
    int c = *cap ? *cap : 8;
    while (c < need) {
        if (c > INT32_MAX / 2)
            oom((size_t)need * elem);
        c *= 2;
    }
    *arr = xreallocarray(*arr, (size_t)c, elem);
    *cap = c;
}
