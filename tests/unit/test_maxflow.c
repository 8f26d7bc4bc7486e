/* test_maxflow.c — src/base/maxflow.h against brute force: on small
 * random networks the flow equals the least capacity over every s-t cut
 * (all 2^(n-2) vertex sets), and the source side it marks is such a cut;
 * an uncuttable path gives at least MAXFLOW_INF; a hand-made network has
 * its known cut. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "src/base/maxflow.h"

#define MAXV 10

/* A linear congruential draw (the high bits). */
static unsigned draw(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

typedef struct {
    int a, b;
    double cap;
} Arc;

/* Capacity of the cut whose source side is the bit set `side`. */
static double cut_of(const Arc *arcs, int na, unsigned side)
{
    double c = 0;
    for (int i = 0; i < na; i++)
        if ((side >> arcs[i].a & 1) && !(side >> arcs[i].b & 1))
            c += arcs[i].cap;
    return c;
}

static void test_random_against_brute_force(void **st TU_UNUSED)
{
    unsigned seed = 12345;
    for (int round = 0; round < 300; round++) {
        int n = 2 + (int)(draw(&seed) % (MAXV - 1)), na = (int)(draw(&seed) % (3 * n + 1));
        Arc arcs[3 * MAXV + 1];
        MaxFlow *f = maxflow_new(n);
        for (int i = 0; i < na; i++) {
            int a = (int)(draw(&seed) % (unsigned)n), b = (int)(draw(&seed) % (unsigned)n);
            /* integral and fractional capacities, zeros among them */
            double cap = (double)(draw(&seed) % 9) / (1 + draw(&seed) % 3);
            arcs[i] = (Arc){a, b, cap};
            maxflow_edge(f, a, b, cap);
        }
        int s = 0, t = n - 1;
        double flow = maxflow_run(f, s, t), best = INFINITY;
        for (unsigned side = 0; side < 1u << n; side++)
            if ((side >> s & 1) && !(side >> t & 1))
                best = fmin(best, cut_of(arcs, na, side));
        if (fabs(flow - best) > 1e-9)
            fail_msg("round %d (%d vertices, %d arcs): flow %g, least cut %g", round, n, na, flow, best);
        unsigned side = 0;
        for (int v = 0; v < n; v++)
            side |= (unsigned)maxflow_source_side(f, v) << v;
        assert_true(side & 1);
        assert_false(side >> t & 1);
        assert_true(fabs(cut_of(arcs, na, side) - best) < 1e-9);
        maxflow_free(f);
    }
}

/* s -> a (3), s -> b (2), a -> b (1), a -> t (2), b -> t (3): the flow is
 * 5 and the least cut leaves s alone; an uncuttable s -> t path gives at
 * least MAXFLOW_INF. */
static void test_known_cut(void **st TU_UNUSED)
{
    MaxFlow *f = maxflow_new(4);
    maxflow_edge(f, 0, 1, 3);
    maxflow_edge(f, 0, 2, 2);
    maxflow_edge(f, 1, 2, 1);
    maxflow_edge(f, 1, 3, 2);
    maxflow_edge(f, 2, 3, 3);
    assert_true(maxflow_run(f, 0, 3) == 5);
    assert_true(maxflow_source_side(f, 0));
    assert_false(maxflow_source_side(f, 1) && maxflow_source_side(f, 2));
    assert_false(maxflow_source_side(f, 3));
    maxflow_free(f);

    f = maxflow_new(3);
    maxflow_edge(f, 0, 1, MAXFLOW_INF);
    maxflow_edge(f, 1, 2, MAXFLOW_INF);
    maxflow_edge(f, 0, 2, 4);
    assert_true(maxflow_run(f, 0, 2) >= MAXFLOW_INF);
    maxflow_free(f);
}

TU_MAIN(TU_TEST(test_random_against_brute_force)
        TU_TEST(test_known_cut))
