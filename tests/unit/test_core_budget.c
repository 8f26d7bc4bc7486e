/* test_core_budget.c — solver_plan's up-front budget check: a budget below
 * graph_min_peak is refused with ERR_OVER_BUDGET before the solver runs,
 * including on a graph whose only nodes are resident inputs. */
#include "tests/unit/testutil.h"

static int ran;

static int dummy_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    (void)budget;
    (void)p;
    (void)e;
    ran++;
    for (int i = 0; i < s->g->n; i++)
        if (s->g->nodes[s->g->topo[i]].phase != PHASE_INPUT)
            plan_push(out, s->g->topo[i]);
    return ERR_OK;
}

/* honours budgets (no SOLVER_BUDGETLESS), so solver_plan checks them */
static const SolverClass dummy = {.name = "dummy", .title = "graph order", .solve = dummy_solve};

static int plan_with(const Graph *g, int64_t budget, Plan *p, Err *e)
{
    Solver *s = solver_new(&dummy, g, NULL, e);
    assert_non_null(s);
    int rc = solver_plan(s, budget, NULL, p, NULL, e);
    solver_free(s);
    return rc;
}

/* g's smallest possible peak is lb: a budget one below it is refused
 * before the solver runs, by a message that names lb. */
static void expect_refused_below(const Graph *g, int64_t lb, Plan *p, Err *e)
{
    assert_int_equal(graph_min_peak(g, NULL), lb);
    plan_init(p);
    err_clear(e);
    ran = 0;
    assert_int_equal(plan_with(g, lb - 1, p, e), ERR_OVER_BUDGET);
    assert_int_equal(ran, 0);
    char want[64];
    snprintf(want, sizeof want, "smallest possible peak %lld", (long long)lb);
    assert_non_null(strstr(e->msg, want));
}

static void below_lower_bound_is_refused(void **state TU_UNUSED)
{
    Graph *g = tu_graph("A; B:A; C:B; D:B,C; E:A,D");
    Plan p;
    Err e;
    expect_refused_below(g, 3, &p, &e);
    assert_non_null(strstr(e.msg, "'D'"));
    /* at the bound the solver runs; its plan (the baseline, peak 4) is over */
    assert_int_equal(plan_with(g, 3, &p, &e), ERR_OVER_BUDGET);
    assert_int_equal(ran, 1);
    assert_int_equal(p.peak, 4);
    assert_int_equal(plan_with(g, 4, &p, &e), ERR_OK);
    assert_int_equal(p.peak, tu_check_peak(g, p.steps, p.T, NULL));
    tu_end(g, NULL, &p, NULL);
}

static void inputs_only_graph(void **state TU_UNUSED)
{
    Graph *g = tu_graph_json("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"x\",\"phase\":\"input\",\"size\":5}]}");
    Plan p;
    Err e;
    expect_refused_below(g, 5, &p, &e);
    assert_int_equal(plan_with(g, 5, &p, &e), ERR_OK);
    assert_int_equal(p.T, 0);
    assert_int_equal(p.peak, 5);
    tu_end(g, NULL, &p, NULL);
}

TU_MAIN(TU_TEST(below_lower_bound_is_refused)
        TU_TEST(inputs_only_graph))
