/* test_peak_bound.c — bound_min_peak (src/plan/bound.h): never above the
 * smallest peak any valid schedule reaches (found by the exhaustive search
 * of tests/unit/brute.h on tiny graphs), never below graph_min_peak, and
 * above it where the inputs' making or the outputs' holding say more. */
#include "tests/unit/testutil.h"

#include "src/plan/bound.h"
#include "tests/unit/brute.h"

/* The smallest budget at which some valid schedule fits (brute force over
 * held sets, bisection on the budget); -1 when the graph is too large. */
static int64_t true_min_peak(const Graph *g)
{
    int64_t lo = graph_min_peak(g, NULL), hi = tu_baseline_peak(g);
    if (brute_optimum(g, hi, NULL, NULL) < 0)
        return -1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (brute_optimum(g, mid, NULL, NULL) >= 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* v reads x and y, each made from a large value: whichever input is made
 * last is made while the other is held. graph_min_peak sees one node at a
 * time (10); every schedule needs 12. */
static void test_inputs_made_last(void **state TU_UNUSED)
{
    Graph *g = tu_graph("p1=8; x=2:p1; p2=8; y=2:p2; v:x,y");
    assert_int_equal(graph_min_peak(g, NULL), 10);
    int node;
    assert_int_equal(bound_min_peak(g, &node), 12);
    assert_string_equal(g->nodes[node].id, "v");
    assert_int_equal(true_min_peak(g), 12);
    graph_free(g);
}

/* Two outputs, each made by a node with a large input: the one made last
 * finds the other held to the end. */
static void test_outputs_held(void **state TU_UNUSED)
{
    Graph *g = tu_graph("a=6; o1=3:a; b=6; o2=3:b");
    assert_int_equal(graph_min_peak(g, NULL), 9);
    int node;
    assert_int_equal(bound_min_peak(g, &node), 12);
    assert_int_equal(node, -1);
    assert_int_equal(true_min_peak(g), 12);
    graph_free(g);
}

/* A node no output needs bounds nothing: it may never run. */
static void test_unneeded_node(void **state TU_UNUSED)
{
    Graph *g = tu_graph_json(
        "{\"format\":\"remat-graph\",\"version\":1,\"nodes\":["
        "{\"id\":\"a\",\"phase\":\"fwd\",\"size\":1,\"cost\":1},"
        "{\"id\":\"big\",\"phase\":\"fwd\",\"size\":50,\"cost\":1,\"inputs\":[\"a\"]},"
        "{\"id\":\"o\",\"phase\":\"fwd\",\"size\":1,\"cost\":1,\"inputs\":[\"a\"]}],"
        "\"outputs\":[\"o\"]}");
    int64_t b = bound_min_peak(g, NULL), t = true_min_peak(g);
    assert_true(t > 0);
    assert_true(b <= t);
    graph_free(g);
}

/* Random tiny training graphs and random DAGs: a bound, never weaker than
 * graph_min_peak, and stronger on some. */
static void test_random_is_a_bound(void **state TU_UNUSED)
{
    unsigned seed = 11;
    int stronger = 0, checked = 0;
    for (int i = 0; i < 60; i++) {
        Graph *g = tu_random_chain_training(&seed, 3 + i % 4, i % 3 == 0);
        int64_t b = bound_min_peak(g, NULL), t = true_min_peak(g);
        assert_true(b >= graph_min_peak(g, NULL));
        if (t >= 0) {
            assert_true(b <= t);
            checked++;
        }
        stronger += b > graph_min_peak(g, NULL);
        graph_free(g);
    }
    for (int i = 0; i < 60; i++) {
        /* a random DAG of 8 nodes, sizes 1..9, each reading up to three
         * earlier ones; sinks are the outputs */
        char spec[512];
        size_t u = 0;
        for (int v = 0; v < 8; v++) {
            seed = seed * 1103515245u + 12345u;
            u += (size_t)snprintf(spec + u, sizeof spec - u, "%sn%d=%u", v ? "; " : "", v, 1 + (seed >> 16) % 9);
            int k = v ? (int)((seed >> 8) % 4) : 0;
            for (int j = 0; j < k; j++) {
                seed = seed * 1103515245u + 12345u;
                u += (size_t)snprintf(spec + u, sizeof spec - u, "%cn%u", j ? ',' : ':', (seed >> 16) % (unsigned)v);
            }
        }
        Graph *g = tu_graph(spec);
        int64_t b = bound_min_peak(g, NULL), t = true_min_peak(g);
        assert_true(b >= graph_min_peak(g, NULL));
        if (t >= 0) {
            assert_true(b <= t);
            checked++;
        }
        stronger += b > graph_min_peak(g, NULL);
        graph_free(g);
    }
    assert_true(checked >= 100);
    assert_true(stronger >= 5);
}

TU_MAIN(TU_TEST(test_inputs_made_last) TU_TEST(test_outputs_held) TU_TEST(test_unneeded_node)
            TU_TEST(test_random_is_a_bound))
