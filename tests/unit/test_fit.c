/* test_fit.c — batch fitting: parameters stay fixed while everything else
 * scales, the no-recomputation answer is exact, and a recomputing solver's
 * answer is re-checked on the scaled graph. */
#include "tests/unit/testutil.h"

#include "src/session/fit.h"
#include "src/graph/transform.h"

static const char *G =
    "{\"format\":\"remat-graph\",\"nodes\":["
    "{\"id\":\"w\",\"op\":\"param\",\"phase\":\"input\",\"size\":100},"
    "{\"id\":\"x\",\"op\":\"input\",\"phase\":\"input\",\"size\":4},"
    "{\"id\":\"a\",\"size\":10,\"inputs\":[\"x\",\"w\"]},"
    "{\"id\":\"b\",\"size\":10,\"inputs\":[\"a\"]},"
    "{\"id\":\"c\",\"size\":10,\"inputs\":[\"b\",\"a\"]}]}";

static void test_scaled(void **st TU_UNUSED)
{
    Graph *g = tu_graph_json(G);
    Graph *s = graph_scaled(g, 3, NULL);
    assert_int_equal(s->nodes[graph_find(s, "w")].size, 100);
    assert_int_equal(s->nodes[graph_find(s, "x")].size, 12);
    assert_int_equal(s->nodes[graph_find(s, "c")].size, 30);
    assert_int_equal(s->input_bytes, 112);
    graph_free(s);
    graph_free(g);
}

static void test_plain_exact(void **st TU_UNUSED)
{
    Graph *g = tu_graph_json(G);
    /* baseline peak at multiplier b: 100 + b * (4 + 30) (x, a, b, c at step c) */
    FitResult r;
    Err e;
    assert_int_equal(fit_batch(g, solver_find("noremat"), NULL, 100 + 5 * 34 + 33, -1, 4096, &r, NULL, &e),
                     ERR_OK);
    assert_int_equal(r.b_plain, 5);
    assert_int_equal(r.peak_plain, 100 + 5 * 34);
    assert_int_equal(r.b_remat, 5); /* noremat as "solver" agrees with the closed form */
    fit_result_done(&r);
    assert_int_equal(fit_batch(g, solver_find("noremat"), NULL, 120, -1, 4096, &r, NULL, &e), ERR_OK);
    assert_int_equal(r.b_plain, 0);
    assert_int_equal(r.b_remat, 0);
    fit_result_done(&r);
    graph_free(g);
}

static void test_remat_fits_more(void **st TU_UNUSED)
{
    /* LSTM-like training graph: echo recomputes the cheap ops, so a larger
     * multiplier fits the same memory */
    Graph *f = tu_lstm_graph(0);
    Err e;
    Graph *g = graph_make_training(f, &e);
    int64_t bp = tu_baseline_peak(g);
    FitResult r;
    assert_int_equal(fit_batch(g, solver_find("echo"), NULL, 8 * bp, -1, 4096, &r, NULL, &e), ERR_OK);
    assert_int_equal(r.b_plain, 8);
    assert_true(r.b_remat > r.b_plain);
    assert_true(r.overhead_remat > 0);
    /* re-check the plan on the scaled graph independently */
    Graph *gb = graph_scaled(g, r.b_remat, NULL);
    assert_int_equal(tu_check_peak(gb, r.plan.steps, r.plan.T, NULL), r.peak_remat);
    assert_true(r.peak_remat <= 8 * bp);
    graph_free(gb);
    /* an overhead cap of 0 % leaves only plans without recomputation */
    FitResult r0;
    assert_int_equal(fit_batch(g, solver_find("echo"), NULL, 8 * bp, 0, 4096, &r0, NULL, &e), ERR_OK);
    assert_int_equal(r0.b_remat, 8);
    fit_result_done(&r0);
    fit_result_done(&r);
    graph_free(g);
    graph_free(f);
}

TU_MAIN(TU_TEST(test_scaled)
        TU_TEST(test_plain_exact)
        TU_TEST(test_remat_fits_more))
