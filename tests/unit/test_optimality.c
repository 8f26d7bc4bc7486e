/* test_optimality.c — every solver against the true optimum (brute.h) on
 * random tiny training graphs: a plan a solver says fits the budget is
 * valid (independent checker), within the budget, and never cheaper than
 * the optimum; solvers marked exact must equal it. Also the brute force
 * itself on the spec's Figure 1 example. */
#include "tests/unit/testutil.h"

#include "src/graph/transform.h"
#include "tests/unit/brute.h"

static void test_brute_fig1(void **st TU_UNUSED)
{
    Graph *g = tu_graph("A; B:A; C:B; D:B,C; E:A,D");
    int s[64], T;
    assert_true(brute_optimum(g, 4, s, &T) == 5);
    assert_true(brute_optimum(g, 3, s, &T) == 6);
    double c;
    assert_int_equal(tu_check_peak(g, s, T, &c), 3);
    assert_true(c == 6);
    assert_true(brute_optimum(g, 2, NULL, NULL) < 0);
    graph_free(g);
}


/* Solve, and for the exact solver over all orders (checkmate-free) also
 * say whether it proved optimality; `checkmate` proves optimality only for
 * the graph's order, so here it is held to the rules of any solver. Exact
 * solvers get a time limit; checkmate's warm start is greedy's plan (the
 * portfolio would take seconds per budget). */
static int solve(const Graph *g, const SolverClass *cls, int64_t b, Plan *p, int *optimal)
{
    SolverOpts o;
    solver_opts_init(&o);
    Err e;
    if (cls->caps & SOLVER_EXACT)   /* a limit that only catches a hang: they end at their proof */
        solver_opts_add(&o, "time_limit=300", &e);
    if (strcmp(cls->name, "checkmate") == 0)
        solver_opts_add(&o, "warm=greedy", &e);
    /* the annealer by iterations (deterministic, quick on tiny graphs) */
    if (strcmp(cls->name, "fastsa") == 0) {
        solver_opts_add(&o, "iters=20000", &e);
        solver_opts_add(&o, "restarts=2", &e);
    }
    if (strcmp(cls->name, "auto") == 0)
        solver_opts_add(&o, "time_limit=0.1", &e);
    Solver *s = solver_new(cls, g, &o, &e);
    solver_opts_done(&o);
    plan_init(p);
    *optimal = 0;
    if (!s)
        return e.code;
    int rc = solver_plan(s, b, NULL, p, NULL, &e);
    if (rc == ERR_OK && strcmp(cls->name, "checkmate-free") == 0)
        *optimal = p->optimal;
    solver_free(s);
    return rc;
}

static void test_solvers_vs_optimum(void **st TU_UNUSED)
{
    unsigned seed = 4242;
    int compared = 0, exact_equal = 0;
    for (int it = 0; it < 40; it++) {
        Graph *g = tu_random_chain_training(&seed, 2 + it % 5, 0);
        int64_t bp;
        double bc;
        sim_baseline(g, &bp, &bc);
        int64_t lo = graph_min_peak(g, NULL);
        /* at the baseline peak nothing needs recomputing */
        assert_true(brute_optimum(g, bp, NULL, NULL) == bc);
        for (int64_t b = lo; b <= bp; b += 1 + (bp - lo) / 4) {
            int sch[1 << 10], T = 0;
            double opt = brute_optimum(g, b, sch, &T);
            if (opt >= 0) { /* the optimum's own schedule is valid, fits, and costs opt */
                double c;
                int64_t pk = tu_check_peak(g, sch, T, &c);
                assert_true(pk >= 0 && pk <= b);
                assert_true(c == opt);
            }

            for (int i = 0; i < solver_count(); i++) {
                const SolverClass *cls = solver_at(i);
                /* the exact MILP is compared on the smaller graphs, where a
                 * schedule exists (proving infeasibility is its slow case) */
                if ((cls->caps & SOLVER_EXACT) && (g->n > 2 * 4 + 2 || opt < 0))
                    continue;
                Plan p;
                int optimal;
                int rc = solve(g, cls, b, &p, &optimal);
                if (rc == ERR_OK) {
                    double c;
                    int64_t pk = tu_check_peak(g, p.steps, p.T, &c);
                    assert_int_equal(pk, p.peak);
                    assert_true(pk <= b);
                    if (opt < 0)
                        fail_msg("%s fits budget %lld where the optimum says nothing does", cls->name,
                                 (long long)b);
                    if (c < opt - 1e-9)
                        fail_msg("%s cost %g below the optimum %g", cls->name, c, opt);
                    if (optimal) {
                        if (c > opt + 1e-9)
                            fail_msg("exact solver %s says optimal at cost %g; the optimum is %g",
                                     cls->name, c, opt);
                        exact_equal++;
                    }
                    compared++;
                } else if (strcmp(cls->name, "checkmate-free") == 0 && opt >= 0 && rc == ERR_OVER_BUDGET) {
                    fail_msg("exact solver %s found no plan within %lld; optimum cost %g", cls->name,
                             (long long)b, opt);
                }
                plan_done(&p);
            }
        }
        graph_free(g);
    }
    assert_true(compared > 100);
    if (solver_find("checkmate-free"))
        assert_true(exact_equal >= 20);
}

TU_MAIN(TU_TEST(test_brute_fig1)
        TU_TEST(test_solvers_vs_optimum))
