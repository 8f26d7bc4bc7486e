/* test_bound_any.c — bound_any_cost (src/plan/bound.h): never above the
 * cheapest schedule within the budget in any order (tests/unit/brute.h's
 * exhaustive search on tiny graphs), exact where a hand count says it is,
 * and above the needed nodes' cost on many random training graphs. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "src/plan/bound.h"
#include "tests/unit/brute.h"

/* The hand-counted graph of the tests below. */
#define HAND "a=4; b=1:a; c=1:b; d=0:c,a"

/* bound_any_cost(g, budget) with 10 s, which must succeed; its X into
 * *node (may be NULL). */
static double bound_at(const Graph *g, int64_t budget, int *node)
{
    double lb;
    Err e;
    err_clear(&e);
    assert_int_equal(bound_any_cost(g, budget, 10, NULL, &lb, node, NULL, &e), ERR_OK);
    return lb;
}

/* a (4 bytes) is read by b and again by d, after c: at c's first run it is
 * held (4 + b + c = 6 bytes) or made again after it. At 5 bytes it must be
 * made again (a, b, c, a, d: cost 5, every step within 5), at 6 it may be
 * held (cost 4). At 5 bytes only 3 are free at c's step, fewer than a's 4,
 * so a is not held there (the Lagrangian alone held it in part: a quarter
 * of its rerun, 4.25, rounded up to 5 by whole costs). */
static void test_hand_counted(void **state TU_UNUSED)
{
    Graph *g = tu_graph(HAND);
    int node;
    assert_true(fabs(bound_at(g, 5, &node) - 5) < 1e-6);
    assert_string_equal(g->nodes[node].id, "c");
    assert_true(fabs(brute_optimum(g, 5, NULL, NULL) - 5) < 1e-9);
    assert_true(fabs(bound_at(g, 6, &node) - 4) < 1e-6);
    assert_int_equal(node, -1);
    assert_true(fabs(brute_optimum(g, 6, NULL, NULL) - 4) < 1e-9);
    graph_free(g);
}

/* The same graph with a costing 3: at 5 bytes its rerun is due (the
 * optimum, 3 + 1 + 1 + 3 + 1 = 9). At c's step 3 bytes are free and a
 * takes 4, so a is never held across it: the bound is the optimum, where
 * the Lagrangian alone held a in part and counted 3 / 4 of its rerun (7).
 * At 6 bytes, 6: nothing must go. */
static void test_costs_count(void **state TU_UNUSED)
{
    Graph *g = tu_graph_json(
        "{\"format\":\"remat-graph\",\"version\":1,\"nodes\":["
        "{\"id\":\"a\",\"phase\":\"fwd\",\"size\":4,\"cost\":3},"
        "{\"id\":\"b\",\"phase\":\"fwd\",\"size\":1,\"cost\":1,\"inputs\":[\"a\"]},"
        "{\"id\":\"c\",\"phase\":\"fwd\",\"size\":1,\"cost\":1,\"inputs\":[\"b\"]},"
        "{\"id\":\"d\",\"phase\":\"fwd\",\"size\":0,\"cost\":1,\"inputs\":[\"c\",\"a\"]}],"
        "\"outputs\":[\"d\"]}");
    assert_true(fabs(bound_at(g, 5, NULL) - 9) < 1e-6);
    assert_true(fabs(brute_optimum(g, 5, NULL, NULL) - 9) < 1e-9);
    assert_true(fabs(bound_at(g, 6, NULL) - 6) < 1e-6);
    graph_free(g);
}

/* A budget some node cannot run within is refused, naming the node. */
static void test_over_budget(void **state TU_UNUSED)
{
    Graph *g = tu_graph(HAND);
    double lb;
    Err e;
    err_clear(&e);
    assert_int_equal(bound_any_cost(g, 4, 10, NULL, &lb, NULL, NULL, &e), ERR_OVER_BUDGET);
    assert_non_null(strstr(e.msg, "'b'"));
    graph_free(g);
}

static void test_cancelled(void **state TU_UNUSED)
{
    Graph *g = tu_graph(HAND);
    Progress p;
    progress_init(&p);
    p.cancel = 1;
    double lb;
    Err e;
    err_clear(&e);
    assert_int_equal(bound_any_cost(g, 5, 10, &p, &lb, NULL, NULL, &e), ERR_CANCELLED);
    graph_free(g);
}

/* Random training graphs at every budget from the least peak to the
 * baseline's: never above the optimum over all schedules; at least the
 * needed nodes' cost; above it in many cells, equal to the optimum in
 * some of those (the Lagrangian holds values in part, so it is exact only
 * where what must go is whole values). Measured: 1821 cells, 464 above,
 * 82 exact. */
static void test_random_is_a_bound(void **state TU_UNUSED)
{
    uint32_t seed = 11;
    int checked = 0, above = 0, exact = 0;
    for (int i = 0; i < 600; i++) {
        Graph *g = tu_random_training(&seed, 1 + i % 4);
        double need = 0;
        for (int v = 0; v < g->n; v++)
            if (g->nodes[v].phase != PHASE_INPUT)
                need += g->nodes[v].cost;
        int64_t top = tu_baseline_peak(g);
        for (int64_t b = bound_min_peak(g, NULL); b <= top; b++) {
            double opt = brute_optimum(g, b, NULL, NULL), lb;
            Err e;
            err_clear(&e);
            int rc = bound_any_cost(g, b, 10, NULL, &lb, NULL, NULL, &e);
            if (opt < 0)
                continue;   /* nothing fits: any answer is a bound */
            assert_int_equal(rc, ERR_OK);
            assert_true(lb <= opt + 1e-6);
            assert_true(lb >= need - 1e-6);
            checked++;
            above += lb > need + 1e-6;
            exact += lb > need + 1e-6 && lb >= opt - 1e-6;
        }
        graph_free(g);
    }
    print_message("bound_any: %d cells, %d above the needed cost, %d of those exact\n", checked, above, exact);
    assert_true(checked >= 1500);
    assert_true(above >= 400);
    assert_true(exact >= 70);
}

/* Two points (bound_any.c, two_points): on this graph at 18 bytes no
 * single step's bound passes 17 (measured with the pairs left out), and a
 * pair of them counts 18; the optimum is 19. */
static void test_two_points(void **state TU_UNUSED)
{
    Graph *g = tu_training("!x; f0=2:x; f1=4:x,f0; f2=2:x; f3=2:x,f1; f4=4:x,f1; f5=4:x,f0,f3");
    assert_true(fabs(bound_at(g, 18, NULL) - 18) < 1e-6);
    assert_true(fabs(brute_optimum(g, 18, NULL, NULL) - 19) < 1e-9);
    graph_free(g);
}

/* bound_cover (auto's answers, the compare view, solve --bound) folds it
 * in: on lstm64 at 60 % of its peak, FLOP costs, the graph order's cover
 * bound (6.4585e9 with 30 s) lies below it (6.8372e9); with any time at
 * all, bound_cover tries at least the first X, whose bound (time 0 here)
 * is the whole search's on this graph. */
static void test_cover_folds_it_in(void **state TU_UNUSED)
{
    Graph *g = tu_load("samples/models/lstm64.json");
    int64_t peak;
    double base, any, lb;
    sim_baseline(g, &peak, &base);
    int64_t b = peak * 60 / 100;
    Err e;
    err_clear(&e);
    bound_cache_clear();
    assert_int_equal(bound_any_cost(g, b, 0, NULL, &any, NULL, NULL, &e), ERR_OK);
    assert_true(any > base * 1.05);
    assert_int_equal(bound_cover(g, NULL, 0, b, 1, NULL, &lb, &e), ERR_OK);
    assert_true(lb >= any * (1 - 1e-12));
    /* and it is cached: asked again for no time, the same */
    double again;
    assert_int_equal(bound_cover(g, NULL, 0, b, 0, NULL, &again, &e), ERR_OK);
    assert_true(again >= any * (1 - 1e-12));
    bound_cache_clear();
    graph_free(g);
}

TU_MAIN(TU_TEST(test_hand_counted) TU_TEST(test_costs_count) TU_TEST(test_over_budget) TU_TEST(test_cancelled)
            TU_TEST(test_random_is_a_bound) TU_TEST(test_two_points)
            TU_TEST(test_cover_folds_it_in))
