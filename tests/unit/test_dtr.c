/* test_dtr.c — the dtr solver: DTR's rule in the greedy walk (solvers/dtr.c). */
#include "tests/unit/testutil.h"

/* Room for E (2) at budget 6 with A (1), B (2, E's input) and D (2) held,
 * A and D next read by F: greedy drops the larger D, which runs again
 * with C and C2 (cost 10); dtr drops A, which runs again alone (cost 8,
 * A's 1 per byte and step against D's 3 per 2 bytes). */
static void test_dtr_cheapest_rerun(void **state TU_UNUSED)
{
    Graph *g = tu_graph("A; B=2; C:A; C2:C; D=2:C2; E=2:B; F:A,D");
    Plan p, q;
    assert_int_equal(tu_solve(g, "dtr", 6, &p, NULL), ERR_OK);
    const char *want[] = {"A", "B", "C", "C2", "D", "E", "A", "F"};
    assert_int_equal(p.T, 8);
    for (int t = 0; t < p.T; t++)
        assert_string_equal(g->nodes[p.steps[t]].id, want[t]);
    tu_check_plan(g, &p);
    assert_int_equal(p.peak, 6);
    assert_true(p.cost == 8);
    assert_int_equal(tu_solve(g, "greedy", 6, &q, NULL), ERR_OK);
    assert_true(q.cost == 10);
    tu_end(g, NULL, &p, &q, NULL);
}

/* On random small training graphs at every budget from the lowest peak
 * up: every plan re-checked by the independent checker, within the budget
 * exactly when the status says so; at the baseline's peak (or with no
 * budget) every node runs once; walks=both is never worse than
 * walks=forward (within the budget and no dearer, or a peak no higher),
 * and where the forward values are not enough it sometimes fits. */
static void test_dtr_random(void **state TU_UNUSED)
{
    uint32_t seed = 2021;
    const char *fwd[] = {"walks=forward", NULL};
    int rescued = 0, cells = 0;
    for (int iter = 0; iter < 200; iter++) {
        Graph *g = tu_random_training(&seed, 3);
        int64_t base = tu_baseline_peak(g), lo = graph_min_peak(g, NULL);
        int running = graph_running_nodes(g);
        Plan p, f;
        assert_int_equal(tu_solve(g, "dtr", PLAN_NO_BUDGET, &p, NULL), ERR_OK);
        assert_int_equal(p.T, running);
        plan_done(&p);
        for (int64_t b = lo; b <= base; b++) {
            int rc = tu_solve(g, "dtr", b, &p, NULL);
            assert_true(rc == ERR_OK || rc == ERR_OVER_BUDGET);
            tu_check_plan(g, &p);
            assert_true(rc == ERR_OK ? p.peak <= b : p.peak > b);
            if (b == base)
                assert_true(rc == ERR_OK && p.T == running);
            int rf = tu_solve(g, "dtr", b, &f, fwd);
            assert_true(rf == ERR_OK || rf == ERR_OVER_BUDGET);
            tu_check_plan(g, &f);
            if (rf == ERR_OK)
                assert_true(rc == ERR_OK && p.cost <= f.cost);
            else
                assert_true(rc == ERR_OK || p.peak <= f.peak);
            rescued += rf != ERR_OK && rc == ERR_OK;
            cells++;
            plan_done(&p);
            plan_done(&f);
        }
        graph_free(g);
    }
    printf("%d cells, %d fitted only by the second walk\n", cells, rescued);
    assert_true(rescued > 0);
}

/* The option is checked: a bad value is a usage error naming it. */
static void test_dtr_options(void **state TU_UNUSED)
{
    Graph *g = tu_graph("A; B:A");
    const char *bad[] = {"walks=sideways", NULL};
    SolverOpts o;
    solver_opts_init(&o);
    Err e;
    err_clear(&e);
    assert_int_equal(solver_opts_add(&o, bad[0], &e), ERR_OK);
    Solver *s = solver_new(solver_find("dtr"), g, &o, &e);
    assert_null(s);
    assert_non_null(strstr(e.msg, "walks"));
    solver_opts_done(&o);
    graph_free(g);
}

TU_MAIN(TU_TEST(test_dtr_cheapest_rerun)
        TU_TEST(test_dtr_random)
        TU_TEST(test_dtr_options))
