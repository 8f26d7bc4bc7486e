/* test_heap.c — src/base/heap.h against a linear scan: pops come out in
 * "before" order under random pushes and pops, a heap built with _down
 * pops sorted, and a comparison through a context (keys held elsewhere,
 * as chen's ready queue does) orders by the context. */
#include "tests/unit/testutil.h"
#include "src/base/heap.h"

typedef struct {
    int key, id;
} Item;

/* key first, then id: every pop is determined */
static inline int item_before(const void *c, const Item *a, const Item *b)
{
    (void)c;
    return a->key != b->key ? a->key < b->key : a->id < b->id;
}
HEAP_DEFINE(items, Item, void, item_before)

/* ints ordered by a key array the heap does not hold */
typedef struct {
    const int *key;
} ByKey;

static inline int by_key_before(const ByKey *k, const int *a, const int *b)
{
    return k->key[*a] > k->key[*b] || (k->key[*a] == k->key[*b] && *a < *b);
}
HEAP_DEFINE(bykey, int, ByKey, by_key_before)

/* The reference: index of the first live item in (key, id) order. */
static int ref_min(const Item *a, int n)
{
    int m = 0;
    for (int i = 1; i < n; i++)
        if (item_before(NULL, &a[i], &a[m]))
            m = i;
    return m;
}

static void test_random_push_pop(void **state TU_UNUSED)
{
    enum { N = 4000 };
    Item *h = malloc(N * sizeof *h), *ref = malloc(N * sizeof *ref);
    int n = 0, nr = 0;
    unsigned seed = 12345;
    long pops = 0;
    for (int it = 0; it < 3 * N; it++) {
        seed = seed * 1103515245u + 12345u;
        int push = n == 0 || (n < N && (seed >> 16) % 3 != 0);
        if (push) {
            Item x = {(int)((seed >> 8) % 50), it};   /* many ties */
            items_push(h, &n, x, NULL);
            ref[nr++] = x;
        } else {
            Item got = items_pop(h, &n, NULL);
            int m = ref_min(ref, nr);
            assert_int_equal(got.key, ref[m].key);
            assert_int_equal(got.id, ref[m].id);
            ref[m] = ref[--nr];
            pops++;
        }
        assert_int_equal(n, nr);
    }
    assert_true(pops > N / 2);
    free(h);
    free(ref);
}

static void test_heapify_with_down(void **state TU_UNUSED)
{
    enum { N = 777 };
    Item h[N];
    unsigned seed = 99;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        h[i] = (Item){(int)((seed >> 8) % 1000) - 500, i};
    }
    int n = N;
    for (int i = n / 2 - 1; i >= 0; i--)
        items_down(h, n, i, NULL);
    int prev = -1000;
    while (n) {
        Item x = items_pop(h, &n, NULL);
        assert_true(x.key >= prev);
        prev = x.key;
    }
}

static void test_context_order(void **state TU_UNUSED)
{
    const int key[] = {5, 9, 1, 9, 7, 5, 0, 3};
    const ByKey k = {key};
    int h[8], n = 0;
    for (int v = 7; v >= 0; v--)
        bykey_push(h, &n, v, &k);
    /* highest key first, the lower index among equal keys */
    const int want[] = {1, 3, 4, 0, 5, 7, 2, 6};
    for (int i = 0; i < 8; i++)
        assert_int_equal(bykey_pop(h, &n, &k), want[i]);
    assert_int_equal(n, 0);
}

TU_MAIN(TU_TEST(test_random_push_pop)
        TU_TEST(test_heapify_with_down)
        TU_TEST(test_context_order))
