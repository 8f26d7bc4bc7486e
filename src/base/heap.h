/* heap.h — binary heaps over caller-owned arrays of any element type.
 * HEAP_DEFINE(name, T, Ctx, before) writes static inline functions for one
 * element type, so each heap keeps its own type and an inlined comparison
 * (the greedy solver's eviction queue and the order search's frontier are
 * hot loops):
 *
 *     name_up(h, i, c)          move h[i] up to its place
 *     name_down(h, n, i, c)     move h[i] down to its place among h[0..n)
 *     name_push(h, &n, x, c)    add x; h must have room for one more
 *     name_pop(h, &n, c)        remove and return the first (n > 0)
 *
 * before(c, a, b), with a and b pointers to T and c a const Ctx * (Ctx may
 * be void), is true when a leaves the heap before b. Only a strict
 * "before" moves an element, and a tie between two children goes to the
 * first, so equal elements come out in a fixed order. */
#ifndef REMAT_HEAP_H
#define REMAT_HEAP_H

#define HEAP_DEFINE(name, T, Ctx, before)                                                          \
    static inline void name##_up(T *h, int i, const Ctx *c)                                        \
    {                                                                                              \
        T x = h[i];                                                                                \
        while (i > 0 && before(c, &x, &h[(i - 1) / 2])) {                                          \
            h[i] = h[(i - 1) / 2];                                                                 \
            i = (i - 1) / 2;                                                                       \
        }                                                                                          \
        h[i] = x;                                                                                  \
    }                                                                                              \
    static inline void name##_down(T *h, int n, int i, const Ctx *c)                               \
    {                                                                                              \
        T x = h[i];                                                                                \
        for (;;) {                                                                                 \
            int k = 2 * i + 1;                                                                     \
            if (k >= n)                                                                            \
                break;                                                                             \
            if (k + 1 < n && before(c, &h[k + 1], &h[k]))                                          \
                k++;                                                                               \
            if (!before(c, &h[k], &x))                                                             \
                break;                                                                             \
            h[i] = h[k];                                                                           \
            i = k;                                                                                 \
        }                                                                                          \
        h[i] = x;                                                                                  \
    }                                                                                              \
    static inline void name##_push(T *h, int *n, T x, const Ctx *c)                                \
    {                                                                                              \
        h[*n] = x;                                                                                 \
        name##_up(h, (*n)++, c);                                                                   \
    }                                                                                              \
    static inline T name##_pop(T *h, int *n, const Ctx *c)                                         \
    {                                                                                              \
        T top = h[0];                                                                              \
        if (--*n > 0) {                                                                            \
            h[0] = h[*n];                                                                          \
            name##_down(h, *n, 0, c);                                                              \
        }                                                                                          \
        return top;                                                                                \
    }

#endif
