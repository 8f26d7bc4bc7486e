/* test_revolve.c — the Opt0 recurrence against an independent top-down
 * brute force, and the revolve solver on a 32-stage training chain:
 * plans re-validated by the spec checker, peak/cost trade-off, refusals. */
#include "tests/unit/testutil.h"

#include "solvers/chain/revolve.h"
#include "src/plan/sim.h"
#include "src/graph/transform.h"

static long long memo[32][8];

/* Straight from the definition: the first checkpoint after the input sits
 * at position j; advance j stages, reverse the tail with one slot fewer,
 * then reverse the head with all slots again. */
static long long brute(int l, int c)
{
    if (l <= 1)
        return l;
    if (memo[l][c])
        return memo[l][c];
    long long best;
    if (c == 1) {
        best = 0;   /* replay from the input before every backward step */
        for (int k = 1; k <= l; k++)
            best += k;
    } else {
        best = -1;
        for (int j = 1; j < l; j++) {
            long long v = j + brute(l - j, c - 1) + brute(j, c);
            if (best < 0 || v < best)
                best = v;
        }
    }
    return memo[l][c] = best;
}

static void test_opt0(void **state TU_UNUSED)
{
    for (int l = 0; l <= 30; l++)
        for (int c = 1; c <= 6; c++)
            assert_int_equal(revolve_opt0(l, c), brute(l, c));
    for (int l = 1; l <= 30; l++)
        assert_int_equal(revolve_opt0(l, 1) - l, (long long)l * (l - 1) / 2);
    /* with l slots every stage is stored: no recomputation */
    for (int l = 1; l <= 20; l++)
        assert_int_equal(revolve_opt0(l, l), 2 * l - 1);  /* one advance + one taped run */
    assert_int_equal(revolve_opt0(3, 2), 5);  /* 1 + Opt0(2,1)=3 + Opt0(1,2)=1 */
    assert_int_equal(revolve_opt0(-1, 2), -1);
    assert_int_equal(revolve_opt0(3, 0), -1);
}

static void test_chain(void **state TU_UNUSED)
{
    Graph *g = tu_chain_training("a", 1, 32);
    Plan free_pl;
    plan_init(&free_pl);
    assert_int_equal(tu_solve(g, "revolve", PLAN_NO_BUDGET, &free_pl, NULL), ERR_OK);
    double c0;
    int64_t p0 = tu_check_peak(g, free_pl.steps, free_pl.T, &c0);
    assert_true(p0 > 0);
    assert_int_equal(p0, free_pl.peak);
    int64_t bpk;
    double bcost;
    sim_baseline(g, &bpk, &bcost);
    assert_true(c0 == bcost);   /* enough slots: nothing is recomputed */
    assert_true(p0 <= bpk);
    int64_t prev_peak = p0;
    double prev_cost = c0;
    int strict = 0;
    for (int64_t b = p0 - 1; b > 0; b = b * 3 / 4) {
        Plan pl;
        plan_init(&pl);
        int rc = tu_solve(g, "revolve", b, &pl, NULL);
        if (rc != ERR_OK) {
            assert_int_equal(rc, ERR_OVER_BUDGET);
            plan_done(&pl);
            break;
        }
        double c;
        int64_t pk = tu_check_peak(g, pl.steps, pl.T, &c);
        assert_true(pk >= 0);
        assert_true(pk <= b);
        assert_true(pk <= prev_peak);
        assert_true(c >= prev_cost);
        if (c > prev_cost)
            strict++;
        prev_peak = pk;
        prev_cost = c;
        plan_done(&pl);
    }
    assert_true(strict >= 1);
    assert_true(prev_peak < p0);
    tu_end(g, NULL, &free_pl, NULL);
}

static void test_describe(void **state TU_UNUSED)
{
    Graph *g = tu_chain_training("a", 1, 32);
    Solver *s = tu_solver(g, "revolve", NULL);
    Plan pl;
    assert_int_equal(tu_plan(s, PLAN_NO_BUDGET, NULL, &pl), ERR_OK);
    Overlay o;
    tu_describe(s, &o);
    assert_int_equal(o.n, 32);  /* one stage per chain node */
    for (int i = 0; i < o.n; i++) {
        assert_int_equal(o.groups[i].kind, OVERLAY_SEGMENT);
        assert_int_equal(o.groups[i].n, 1);
    }
    assert_non_null(strstr(o.groups[2].label, "stage 3: 1 nodes"));
    overlay_done(&o);
    tu_end(g, s, &pl, NULL);
}

static void test_refuse(void **state TU_UNUSED)
{
    Graph *f = tu_graph("!x; a:x; b:x; c:a; d:b; e:c,d");
    Err e;
    err_clear(&e);
    Graph *g = graph_make_training(f, &e);
    assert_non_null(g);
    Solver *s = tu_solver_new(g, "revolve", NULL, &e);
    assert_null(s);
    assert_int_equal(e.code, ERR_UNSUPPORTED);
    assert_non_null(strstr(e.msg, "not a chain"));
    s = tu_solver_new(f, "revolve", NULL, &e);
    assert_null(s);
    assert_int_equal(e.code, ERR_UNSUPPORTED);
    assert_non_null(strstr(e.msg, "training"));
    graph_free(g);
    graph_free(f);
}

TU_MAIN(TU_TEST(test_opt0)
        TU_TEST(test_chain)
        TU_TEST(test_describe)
        TU_TEST(test_refuse))
