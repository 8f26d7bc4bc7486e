/* test_pairing.c — forward/backward pairing (src/graph/pairing.c): grad_of when a
 * graph names any; in a joint graph, the latest forward input, checked
 * against where the gradient goes (a two-branch product, side values), and
 * the training-graph check the pairing solvers share. */
#include "tests/unit/testutil.h"

#include "src/graph/pairing.h"

static int pair_of(const Graph *g, const char *id)
{
    int v = graph_find(g, id);
    assert_true(v >= 0);
    return g->nodes[v].pair;
}

static void expect_pair(const Graph *g, const char *id, const char *fwd)
{
    int p = pair_of(g, id);
    if (!fwd) {
        assert_int_equal(p, -1);
        return;
    }
    assert_true(p >= 0);
    assert_string_equal(g->nodes[p].id, fwd);
}

#define N(id, ph, ins) "{\"id\":\"" id "\",\"phase\":\"" ph "\",\"inputs\":[" ins "]}"

/* a chain the way aot_function writes it: relu's backward reads relu's
 * output, the next layer's backward reads its input; a gradient sum and a
 * matrix product's input gradient read no forward value */
static void test_chain(void **state TU_UNUSED)
{
    Graph *g = tu_graph_json("{\"format\":\"remat-graph\",\"nodes\":["
        N("x", "input", "") "," N("w1", "input", "") "," N("w2", "input", "") ","
        N("mm1", "fwd", "\"x\",\"w1\"") "," N("r1", "fwd", "\"mm1\"") ","
        N("mm2", "fwd", "\"r1\",\"w2\"") "," N("loss", "loss", "\"mm2\"") ","
        N("gin", "bwd", "\"loss\",\"w2\"") ","          /* grad of r1: no forward input */
        N("gw2", "bwd", "\"loss\",\"r1\"") ","          /* weight gradient: reads r1 */
        N("tb1", "bwd", "\"gin\",\"r1\"") ","           /* relu backward */
        N("gw1", "bwd", "\"tb1\",\"x\"") "]}");        /* reads only the input */
    expect_pair(g, "tb1", "r1");
    expect_pair(g, "gw2", "r1");
    expect_pair(g, "gin", "r1");    /* its consumer's pair */
    expect_pair(g, "gw1", NULL);    /* no forward input, no consumer */
    expect_pair(g, "mm1", NULL);    /* forward nodes pair with none */
    Err e;
    err_clear(&e);
    assert_int_equal(pairing_require(g, "revolve", &e), ERR_OK);
    graph_free(g);
}

/* two towers meeting at a product: d(a*b)/da = g*b reads the other tower's
 * output but flows into a's tower, and pairs there */
static void test_product_of_branches(void **state TU_UNUSED)
{
    Graph *g = tu_graph_json("{\"format\":\"remat-graph\",\"nodes\":["
        N("x", "input", "") "," N("y", "input", "") ","
        N("a1", "fwd", "\"x\"") "," N("a", "fwd", "\"a1\"") ","
        N("b1", "fwd", "\"y\"") "," N("b", "fwd", "\"b1\"") ","
        N("m", "fwd", "\"a\",\"b\"") "," N("loss", "loss", "\"m\"") ","
        N("ga", "bwd", "\"loss\",\"b\"") "," N("gb", "bwd", "\"loss\",\"a\"") ","
        N("ga1", "bwd", "\"ga\",\"a1\"") "," N("gb1", "bwd", "\"gb\",\"b1\"") "]}");
    expect_pair(g, "ga1", "a1");
    expect_pair(g, "gb1", "b1");
    expect_pair(g, "ga", "a1");     /* not b: its gradient goes into a's tower */
    expect_pair(g, "gb", "b1");
    graph_free(g);
}

/* a side value (statistics only the backward reads) counts at its inputs:
 * the relu backward upstream of the batch-norm backward keeps its own pair */
static void test_side_value(void **state TU_UNUSED)
{
    Graph *g = tu_graph_json("{\"format\":\"remat-graph\",\"nodes\":["
        N("x", "input", "") "," N("c", "fwd", "\"x\"") "," N("bn", "fwd", "\"c\"") ","
        N("st", "fwd", "\"c\"") "," N("r", "fwd", "\"bn\"") "," N("loss", "loss", "\"r\"") ","
        N("tb", "bwd", "\"loss\",\"r\"") "," N("bnb", "bwd", "\"tb\",\"c\",\"st\"") ","
        N("cb", "bwd", "\"bnb\",\"x\"") "]}");
    expect_pair(g, "bnb", "st");
    expect_pair(g, "tb", "r");      /* st is not r's ancestor, but its input c is */
    expect_pair(g, "cb", NULL);     /* reads only an input, and nothing reads it */
    graph_free(g);
}

/* grad_of named anywhere: the pairing is grad_of, nothing inferred */
static void test_grad_of_wins(void **state TU_UNUSED)
{
    Graph *g = tu_graph_json("{\"format\":\"remat-graph\",\"nodes\":["
        N("x", "input", "") "," N("a", "fwd", "\"x\"") "," N("b", "fwd", "\"a\"") ","
        N("loss", "loss", "\"b\"") ","
        "{\"id\":\"b.grad\",\"phase\":\"bwd\",\"inputs\":[\"loss\",\"a\"],\"grad_of\":\"b\"},"
        N("other", "bwd", "\"b.grad\",\"a\"") "]}");
    expect_pair(g, "b.grad", "b");
    expect_pair(g, "other", NULL);
    graph_free(g);
}

static void test_refusal(void **state TU_UNUSED)
{
    Graph *g = tu_graph("!x; A:x; B:A");
    Err e;
    err_clear(&e);
    assert_int_equal(pairing_require(g, "join", &e), ERR_UNSUPPORTED);
    assert_string_equal(e.msg, "join: not a training graph (no bwd node names a forward node in "
                               "grad_of or reads one), so there is no backward pass to recompute for");
    graph_free(g);
}

TU_MAIN(TU_TEST(test_chain)
        TU_TEST(test_product_of_branches)
        TU_TEST(test_side_value)
        TU_TEST(test_grad_of_wins)
        TU_TEST(test_refusal))
