/* xalloc.h — the one allocator family of the project.
 *
 * These never return NULL: running out of memory is not a condition the
 * program can recover from meaningfully, so they print one line and abort.
 * Zero-byte requests are treated as one byte so callers need no special case.
 */
#ifndef REMAT_XALLOC_H
#define REMAT_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* count*size with overflow check */
void *xmallocarray(size_t count, size_t size);
void *xreallocarray(void *p, size_t count, size_t size);
char *xstrdup(const char *s);

/* Grow *arr (of elem bytes each) so that it holds at least need items;
 * *cap is updated. Doubling keeps appends amortised O(1). */
void xgrow(void **arr, int *cap, int need, size_t elem);

#endif
