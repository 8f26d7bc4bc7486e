/* test_echo.c — Echo: plans valid and never worse than noremat; cheap
 * subgraphs between heavy operators are recomputed when the global
 * footprint falls, and left alone in the pathological case of Zheng et
 * al.'s Figure 7 (recomputing would stash larger inputs). */
#include "tests/unit/testutil.h"

#include "src/graph/transform.h"

/* forward graph text as JSON nodes: id op size inputs */
static Graph *fwd_graph(const char *nodes_json)
{
    char buf[8192 + 64];   /* the nodes and the document around them */
    snprintf(buf, sizeof buf, "{\"format\":\"remat-graph\",\"nodes\":[%s]}", nodes_json);
    return tu_make_training(tu_graph_json(buf));
}

/* noremat's and echo's plans for g into *base and *p; echo's must
 * re-validate with the peak it states. */
static void solve_both(const Graph *g, Plan *base, Plan *p)
{
    assert_int_equal(tu_solve(g, "noremat", PLAN_NO_BUDGET, base, NULL), ERR_OK);
    assert_int_equal(tu_solve(g, "echo", PLAN_NO_BUDGET, p, NULL), ERR_OK);
    assert_int_equal(tu_check_peak(g, p->steps, p->T, NULL), p->peak);
}

static void test_lstm_like_chain(void **st TU_UNUSED)
{
    /* matmul -> 3 cheap elementwise ops -> matmul, repeated: the cheap
     * values are stashed for backward, the matmul outputs anyway */
    Graph *g = tu_make_training(tu_lstm_graph(1));
    Plan base, p;
    solve_both(g, &base, &p);
    assert_true(p.peak < base.peak);
    assert_true(p.cost > base.cost);
    /* only cheap ops are recomputed */
    int *runs = calloc((size_t)g->n, sizeof *runs);
    for (int t = 0; t < p.T; t++)
        runs[p.steps[t]]++;
    for (int v = 0; v < g->n; v++)
        if (runs[v] > 1)
            assert_string_equal(g->nodes[v].op, "tanh");
    free(runs);
    tu_end(g, NULL, &p, &base, NULL);
}

static void test_figure7_not_recomputed(void **st TU_UNUSED)
{
    /* Zheng et al. Figure 7: Z = tanh(X + Y). The backward pass keeps only
     * Z (tanh's gradient needs its output, add's none, and the matmuls'
     * gradients need their input a); recomputing {S, Z} would release Z (10)
     * but newly stash X and Y (200): Echo must leave it alone. */
    Graph *g = tu_graph_json(
        "{\"format\":\"remat-graph\",\"nodes\":["
        "{\"id\":\"a\",\"phase\":\"input\",\"size\":1},"
        "{\"id\":\"X\",\"op\":\"matmul\",\"size\":100,\"inputs\":[\"a\"]},"
        "{\"id\":\"Y\",\"op\":\"matmul\",\"size\":100,\"inputs\":[\"a\"]},"
        "{\"id\":\"S\",\"op\":\"add\",\"size\":10,\"inputs\":[\"X\",\"Y\"]},"
        "{\"id\":\"Z\",\"op\":\"tanh\",\"size\":10,\"inputs\":[\"S\"]},"
        "{\"id\":\"W\",\"op\":\"matmul\",\"size\":1,\"inputs\":[\"Z\"]},"
        "{\"id\":\"loss\",\"phase\":\"loss\",\"inputs\":[\"W\"]},"
        "{\"id\":\"W.grad\",\"phase\":\"bwd\",\"grad_of\":\"W\",\"inputs\":[\"loss\",\"Z\"]},"
        "{\"id\":\"Z.grad\",\"phase\":\"bwd\",\"grad_of\":\"Z\",\"size\":10,\"inputs\":[\"W.grad\",\"Z\"]},"
        "{\"id\":\"S.grad\",\"phase\":\"bwd\",\"grad_of\":\"S\",\"size\":10,\"inputs\":[\"Z.grad\"]},"
        "{\"id\":\"X.grad\",\"phase\":\"bwd\",\"grad_of\":\"X\",\"inputs\":[\"S.grad\",\"a\"]},"
        "{\"id\":\"Y.grad\",\"phase\":\"bwd\",\"grad_of\":\"Y\",\"inputs\":[\"S.grad\",\"a\"]}]}");
    Plan base, p;
    solve_both(g, &base, &p);
    assert_int_equal(p.T, base.T); /* nothing recomputed */
    assert_int_equal(p.peak, base.peak);
    tu_end(g, NULL, &p, &base, NULL);
}

static void test_random_never_worse(void **st TU_UNUSED)
{
    unsigned seed = 99;
    const char *ops[] = {"conv2d", "relu", "add", "matmul", "sigmoid"};
    for (int it = 0; it < 60; it++) {
        char nodes[8192];
        size_t u = (size_t)snprintf(nodes, sizeof nodes, "{\"id\":\"in\",\"phase\":\"input\",\"size\":3}");
        int n = 3 + it % 8;
        for (int v = 0; v < n; v++) {
            seed = seed * 1103515245u + 12345u;
            int a = v ? (int)((seed >> 16) % (unsigned)v) : -1;
            char in1[16];
            if (a < 0)
                snprintf(in1, sizeof in1, "in");
            else
                snprintf(in1, sizeof in1, "n%d", a);
            u += (size_t)snprintf(nodes + u, sizeof nodes - u,
                                  ",{\"id\":\"n%d\",\"op\":\"%s\",\"size\":%u,\"cost\":%u,\"inputs\":[\"%s\"%s%s%s]}",
                                  v, ops[(seed >> 8) % 5], 1 + (seed >> 20) % 9, 1 + (seed >> 12) % 5, in1,
                                  v > 1 ? ",\"n" : "", v > 1 ? (char[8]){(char)('0' + (v - 1) % 10), 0} : "",
                                  v > 1 ? "\"" : "");
        }
        Graph *g = fwd_graph(nodes);
        Plan base, p;
        solve_both(g, &base, &p);
        assert_true(p.peak <= base.peak);
        plan_done(&p);
        plan_done(&base);
        graph_free(g);
    }
}

static void test_refuses_forward_only(void **st TU_UNUSED)
{
    Graph *g = tu_graph("A; B:A");
    Plan p;
    assert_int_equal(tu_solve(g, "echo", PLAN_NO_BUDGET, &p, NULL), ERR_UNSUPPORTED);
    graph_free(g);
}

TU_MAIN(TU_TEST(test_lstm_like_chain)
        TU_TEST(test_figure7_not_recomputed)
        TU_TEST(test_random_never_worse)
        TU_TEST(test_refuses_forward_only))
