/* test_join.c — the join-graph DP (Theorem 3.3's minimum, the k = 1 case
 * against revolve's Opt0), the heterogeneous chain DP against a top-down
 * brute force from its definition and against Opt0, and the join and
 * heterogeneous revolve solvers end to end (join's per-branch heterogeneous
 * candidates included): plans re-validated by the
 * independent checker, budgets met, refusals with their reason. */
#include "tests/unit/testutil.h"
#include "tests/unit/brute.h"

#include "solvers/chain/chain_dp.h"
#include "solvers/chain/join_dp.h"
#include "solvers/chain/revolve.h"
#include "src/graph/transform.h"

/* smallest c for which the DP finds any strategy */
static int dp_min(const JoinDP *d, const int *len)
{
    for (int c = 0; c <= d->C; c++)
        if (joindp_cost(d, len, c) < JOIN_DP_INF)
            return c;
    return -1;
}

static void test_min_slots(void **state TU_UNUSED)
{
    for (int k = 2; k <= 3; k++)
        for (int code = 0; code < (k == 2 ? 25 : 125); code++) {
            int len[3] = {code % 5, code / 5 % 5, code / 25};
            JoinDP d;
            assert_int_equal(joindp_build(&d, k, len, 20, 1L << 24), 0);
            assert_int_equal(dp_min(&d, len), join_min_slots(k, len));
            joindp_free(&d);
        }
    /* the paper's figures: two chains need 5 slots, three need 7 */
    int two[2] = {5, 25}, three[3] = {10, 10, 10}, one1[2] = {1, 6}, none[3] = {0, 0, 0};
    assert_int_equal(join_min_slots(2, two), 5);
    assert_int_equal(join_min_slots(3, three), 7);
    assert_int_equal(join_min_slots(2, one1), 4);   /* a branch of length 1 saves one */
    assert_int_equal(join_min_slots(3, none), 3);   /* only the turn */
}

/* one branch: the join recurrence is Opt0 with two more slots (the
 * backward value and the working value) and the last stage run once more */
static void test_k1_is_opt0(void **state TU_UNUSED)
{
    for (int l = 1; l <= 20; l++) {
        JoinDP d;
        assert_int_equal(joindp_build(&d, 1, &l, 10, 1L << 24), 0);
        for (int c = 1; c <= 8; c++) {
            assert_true(joindp_cost(&d, &l, c + 2) == (double)(revolve_opt0(l, c) + 1));
            assert_int_equal(joindp_opt0(&d, l, c), revolve_opt0(l, c));
        }
        joindp_free(&d);
    }
}

/* heterogeneous DP straight from its definition, top down, no table */
static double hbrute(const double *uf, const double *ub, const int *x, const int *tp, int s,
                     int t, int m)
{
    int xs = s > 0 ? x[s - 1] : 0;
    if (m < xs)
        return CHAIN_DP_INF;
    double sum = 0;
    for (int q = s; q < t; q++)
        sum += uf[q];
    if (t - s == 1)
        return ub[s];
    double best = sum - uf[t - 1] + ub[t - 1] + hbrute(uf, ub, x, tp, s, t - 1, m);
    for (int r = s + 1; r < t; r++) {
        double a = hbrute(uf, ub, x, tp, r, t, m - xs);
        if (a >= CHAIN_DP_INF)
            continue;
        double pre = 0;
        for (int q = s; q < r; q++)
            pre += uf[q];
        double v = pre + a + hbrute(uf, ub, x, tp, s, r, m);
        if (v < best)
            best = v;
    }
    if (tp && m - xs - tp[s] >= 0) {
        double a = hbrute(uf, ub, x, tp, s + 1, t, m - xs - tp[s]);
        if (a < CHAIN_DP_INF && uf[s] + a < best)
            best = uf[s] + a;
    }
    return best;
}

static void test_chaindp(void **state TU_UNUSED)
{
    unsigned seed = 7;
    for (int trial = 0; trial < 30; trial++) {
        int L = 2 + trial % 5;
        double uf[8], ub[8];
        int x[8], tp[8];
        for (int i = 0; i < L; i++) {
            seed = seed * 1103515245u + 12345u;
            uf[i] = 1 + (seed >> 16) % 5;
            x[i] = 1 + (seed >> 8) % 3;
            tp[i] = (seed >> 4) % 3;
            ub[i] = (seed >> 20) % 2 ? uf[i] : 0;   /* a backward reading only its input */
        }
        for (int mode = 0; mode < 4; mode++) {
            int tape = mode & 1, rerun = mode >> 1;
            ChainDP d;
            Err e;
            err_clear(&e);
            if (rerun)
                assert_int_equal(chaindp_build_rerun(&d, L, 12, uf, ub, x, tp, tape, NULL, &e),
                                 ERR_OK);
            else
                assert_int_equal(chaindp_build(&d, L, 12, uf, x, tp, tape, NULL, &e), ERR_OK);
            for (int m = 0; m <= 12; m++)
                for (int s = 0; s < L; s++)
                    for (int t = s + 1; t <= L; t++)
                        assert_true(chaindp_cost(&d, s, t, m) ==
                                    hbrute(uf, rerun ? ub : uf, x, tape ? tp : NULL, s, t, m));
            chaindp_free(&d);
        }
    }
    /* equal stages without the tape option: exactly Opt0 (m counts slots) */
    double uf[30];
    int x[30], tp[30];
    for (int i = 0; i < 30; i++)
        uf[i] = 1, x[i] = 1, tp[i] = 0;
    ChainDP d;
    Err e;
    err_clear(&e);
    assert_int_equal(chaindp_build(&d, 30, 8, uf, x, tp, 0, NULL, &e), ERR_OK);
    for (int l = 1; l <= 30; l++)
        for (int c = 1; c <= 8; c++)
            assert_true(chaindp_cost(&d, 30 - l, 30, c - (l == 30)) == (double)revolve_opt0(l, c));
    chaindp_free(&d);
}

/* plan with options opts at budget b (or none) re-validated by the
 * independent checker; returns cost, -1 if over; *peak the plan's peak
 * (-1 when refused up front); steps copied to *steps when non-NULL */
static double plan_with(const Graph *g, const char *const *opts, int64_t b, int64_t *peak,
                        Plan *steps)
{
    Plan pl;
    int rc = tu_solve(g, "join", b, &pl, opts);
    assert_true(rc == ERR_OK || rc == ERR_OVER_BUDGET);
    if (steps)
        plan_copy(steps, &pl);   /* the caller has plan_init'ed it */
    if (pl.T == 0) {   /* refused up front: below the graph's smallest peak */
        assert_int_equal(rc, ERR_OVER_BUDGET);
        plan_done(&pl);
        *peak = -1;
        return -1;
    }
    double c;
    int64_t pk = tu_check_peak(g, pl.steps, pl.T, &c);
    assert_true(pk >= 0);
    assert_int_equal(pk, pl.peak);
    *peak = pk;
    plan_done(&pl);
    if (rc == ERR_OVER_BUDGET)
        return -1;
    assert_true(b == PLAN_NO_BUDGET || pk <= b);
    return c;
}

/* plan with strategy=... at budget b (or none) */
static double plan_at(const Graph *g, const char *strategy, int64_t b, int64_t *peak)
{
    char opt[64];
    snprintf(opt, sizeof opt, "strategy=%s", strategy);
    const char *opts[] = {opt, NULL};
    return plan_with(g, opts, b, peak, NULL);
}

static void check_join_graph(const char *path, int branches)
{
    Graph *g = tu_load(path);
    int64_t bpk, pk, pk2;
    double bcost;
    sim_baseline(g, &bpk, &bcost);
    assert_true(plan_at(g, "optimal", PLAN_NO_BUDGET, &pk) == bcost);
    int64_t prev = bpk + 1;
    for (int pct = 90; pct >= 50; pct -= 10) {
        int64_t b = bpk * pct / 100;
        double c = plan_at(g, "optimal", b, &pk);
        double cn = plan_at(g, "naive", b, &pk2);
        if (cn >= 0)
            assert_true(c >= 0 && c <= cn);   /* never worse than per-branch plans */
        if (c >= 0)
            assert_true(pk <= prev || pk <= b);
        prev = pk;
    }
    /* min-memory: the lowest peak of all strategies */
    double cm = plan_at(g, "min-memory", PLAN_NO_BUDGET, &pk);
    assert_true(cm > bcost && pk < bpk);
    Solver *s = tu_solver(g, "join", NULL);
    Plan pl;
    assert_int_equal(tu_plan(s, pk, NULL, &pl), ERR_OK);
    assert_true(pl.peak <= pk);
    Overlay o;
    tu_describe(s, &o);
    char want[64];
    snprintf(want, sizeof want, "%d branches", branches);
    assert_non_null(strstr(o.title, want));
    assert_non_null(strstr(o.title, "Theorem 3.3 minimum"));
    assert_non_null(strstr(o.groups[0].label, "branch 1 stage 1"));
    int covered = 0;
    for (int i = 0; i < o.n; i++) {
        assert_int_equal(o.groups[i].kind, OVERLAY_SEGMENT);
        covered += o.groups[i].n;
    }
    int cnt[PHASE_COUNT];
    graph_phase_counts(g, cnt);
    assert_int_equal(covered, cnt[PHASE_FWD] + cnt[PHASE_LOSS]);  /* every forward node once */
    overlay_done(&o);
    tu_end(g, s, &pl, NULL);
}

static void test_join3(void **state TU_UNUSED)
{
    check_join_graph("samples/join3.json", 3);
    /* join3: branches 5, 4, 6 -> Theorem 3.3: 3 + 3 + 1 = 7 slots */
    int len[3] = {5, 4, 6};
    assert_int_equal(join_min_slots(3, len), 7);
}

static void test_siamese(void **state TU_UNUSED)
{
    check_join_graph("samples/models/siamese.json", 2);
}

/* two unit chains of 3 meeting at j: small enough for the exact search */
static void test_join_vs_brute(void **state TU_UNUSED)
{
    Graph *g = tu_training("!x; !y; a1:x; a2:a1; a3:a2; b1:y; b2:b1; b3:b2; j:a3,b3");
    int64_t bpk = tu_baseline_peak(g), pk;
    for (int64_t b = bpk; b > 0; b--) {
        double opt = brute_optimum(g, b, NULL, NULL);
        double c = plan_at(g, "optimal", b, &pk);
        if (c >= 0)
            assert_true(c >= opt && opt >= 0);   /* brute is the true optimum */
        if (b == bpk)
            assert_true(c == opt);
    }
    graph_free(g);
}

static void test_refuse(void **state TU_UNUSED)
{
    const char *files[] = {"samples/skip.json", "samples/chain32.json"};
    for (int i = 0; i < 2; i++) {
        Graph *g = tu_load(files[i]);
        Err e;
        assert_null(tu_solver_new(g, "join", NULL, &e));
        assert_int_equal(e.code, ERR_UNSUPPORTED);
        assert_non_null(strstr(e.msg, "not start as separate branches"));
        graph_free(g);
    }
    Graph *g = tu_load("samples/kumar_fig1.json");
    Err e;
    assert_null(tu_solver_new(g, "join", NULL, &e));
    assert_non_null(strstr(e.msg, "not a training graph"));
    graph_free(g);
}

/* heterogeneous revolve on a tiny chain of unequal values: every plan is
 * valid, meets its budget, and costs no less than the exact optimum */
static void test_hetero_revolve(void **state TU_UNUSED)
{
    Graph *g = tu_training("!x; a=3:x; b=1:a; c=4:b; d=1:c; e=2:d; h=1:e");
    int64_t bpk, pk;
    double bcost;
    sim_baseline(g, &bpk, &bcost);
    const char *opts[] = {"model=heterogeneous", "mem_resolution=64", NULL};
    int got = 0;
    for (int64_t b = bpk; b > 0; b--) {
        Plan pl;
        int rc = tu_solve(g, "revolve", b, &pl, opts);
        if (rc == ERR_OK) {
            double c;
            pk = tu_check_peak(g, pl.steps, pl.T, &c);
            assert_true(pk >= 0 && pk <= b);
            double opt = brute_optimum(g, b, NULL, NULL);
            assert_true(opt >= 0 && c >= opt);
            if (b == bpk)
                assert_true(c == bcost);
            got++;
        } else {
            assert_int_equal(rc, ERR_OVER_BUDGET);
        }
        plan_done(&pl);
    }
    assert_true(got >= 3);
    graph_free(g);
}

static const char *const HOMOG[] = {"model=homogeneous", NULL};
static const char *const HETERO[] = {"model=heterogeneous", NULL};
static const char *const AUTO[] = {"model=auto", NULL};

/* auto against each family alone at budget b: never costlier when one
 * fits, never a higher peak when none does; returns auto's cost (-1 over) */
static double auto_dominates(const Graph *g, int64_t b)
{
    int64_t pa, ph, pe;
    double ca = plan_with(g, AUTO, b, &pa, NULL);
    double ch = plan_with(g, HOMOG, b, &ph, NULL);
    double ce = plan_with(g, HETERO, b, &pe, NULL);   /* valid: checked inside */
    if (ch >= 0)
        assert_true(ca >= 0 && ca <= ch);
    if (ce >= 0)
        assert_true(ca >= 0 && ca <= ce);
    if (ca < 0 && pa >= 0)
        assert_true(pa <= ph && pa <= pe);
    return ca;
}

/* siamese: the image branch's values are ~1000x the text branch's, which
 * the homogeneous slot model cannot see; the heterogeneous per-branch
 * candidates (part of auto) must do strictly better */
static void test_siamese_hetero(void **state TU_UNUSED)
{
    Graph *g = tu_load("samples/models/siamese.json");
    int64_t bpk, pk, hpk;
    double bcost;
    sim_baseline(g, &bpk, &bcost);
    int64_t b75 = bpk * 75 / 100, b80 = bpk * 80 / 100;
    /* homogeneous: over budget at 75 %, its lowest peak above the budget */
    assert_true(plan_with(g, HOMOG, b75, &hpk, NULL) < 0);
    assert_true(hpk > b75);
    double c = plan_with(g, AUTO, b75, &pk, NULL);
    assert_true(c >= 0 && pk <= b75 && pk < hpk);
    assert_true(c < bcost * 1.25);   /* and cheaper than greedy's +24.6 % */
    double ch = plan_with(g, HOMOG, b80, &hpk, NULL);
    c = plan_with(g, AUTO, b80, &pk, NULL);
    assert_true(ch >= 0 && c >= 0 && c < ch);
    /* over a range of budgets: auto never worse than homogeneous alone,
     * heterogeneous-only plans valid (plan_with re-simulates every one) */
    for (int pct = 100; pct >= 55; pct -= 5)
        auto_dominates(g, bpk * pct / 100);
    /* describe names the heterogeneous schedule and still shows stages */
    Solver *s = tu_solver(g, "join", NULL);
    Plan pl;
    assert_int_equal(tu_plan(s, b75, NULL, &pl), ERR_OK);
    Overlay o;
    tu_describe(s, &o);
    assert_non_null(strstr(o.title, "heterogeneous, reversed"));
    assert_non_null(strstr(o.title, "Theorem 3.3 minimum 5 slots"));
    assert_non_null(strstr(o.groups[0].label, "branch 1 stage 1"));
    overlay_done(&o);
    /* resolve: a tighter budget on the same prepared tables */
    Plan p2;
    int64_t b70 = bpk * 70 / 100;
    assert_int_equal(tu_plan(s, b70, &pl, &p2), ERR_OK);
    assert_true(p2.peak <= b70 && tu_check_peak(g, p2.steps, p2.T, &c) == p2.peak);
    /* just above the graph's lower bound: over budget, Theorem 3.3 named */
    plan_done(&p2);
    plan_init(&p2);
    int64_t lb = graph_min_peak(g, NULL) + 1;
    Err e;
    err_clear(&e);
    assert_int_equal(solver_plan(s, lb, &pl, &p2, NULL, &e), ERR_OVER_BUDGET);
    assert_non_null(strstr(e.msg, "Theorem 3.3: the join needs at least 5 slots"));
    tu_end(g, s, &p2, &pl, NULL);
}

/* join3 (unit stages): the per-branch schedules still help, because the
 * slot model re-runs every advanced segment: cheaper at 75 %, and 50 %
 * (below Theorem 3.3's schedule's peak 11) becomes reachable */
static void test_join3_hetero(void **state TU_UNUSED)
{
    Graph *g = tu_load("samples/join3.json");
    int64_t bpk = tu_baseline_peak(g), pk, p2;
    for (int64_t b = bpk; b >= bpk / 2; b--)
        auto_dominates(g, b);
    int64_t b75 = bpk * 75 / 100, b50 = bpk / 2;
    double ch = plan_with(g, HOMOG, b75, &pk, NULL);
    double ca = plan_with(g, AUTO, b75, &p2, NULL);
    assert_true(ch >= 0 && ca >= 0 && ca < ch);
    assert_true(plan_with(g, HOMOG, b50, &pk, NULL) < 0);
    assert_true(plan_with(g, AUTO, b50, &p2, NULL) >= 0 && p2 <= b50 && p2 < pk);
    graph_free(g);
}

/* equal stages (two unit chains of 3): every plan of every model is valid
 * and never below the exact optimum; auto is the better of the two
 * families and, with the whole baseline budget, the optimum itself */
static void test_equal_stages(void **state TU_UNUSED)
{
    Graph *g = tu_training("!x; !y; a1:x; a2:a1; a3:a2; b1:y; b2:b1; b3:b2; j:a3,b3");
    int64_t bpk = tu_baseline_peak(g), pk;
    int got = 0;
    for (int64_t b = bpk; b > 0; b--) {
        double ca = auto_dominates(g, b);
        double opt = brute_optimum(g, b, NULL, NULL);
        if (ca >= 0) {
            assert_true(ca >= opt && opt >= 0);
            got++;
        }
        if (b == bpk)
            assert_true(ca == opt);
        double ce = plan_with(g, HETERO, b, &pk, NULL);
        if (ce >= 0)
            assert_true(ce >= opt);
    }
    assert_true(got >= 3);
    graph_free(g);
}

static void test_options(void **state TU_UNUSED)
{
    Graph *g = tu_load("samples/join3.json");
    const char *bad[][2] = {{"model=bogus", "model=bogus: expected auto"},
                            {"mem_resolution=0", "mem_resolution=0: expected 1..4096"}};
    for (int i = 0; i < 2; i++) {
        const char *opts[] = {bad[i][0], NULL};
        Err e;
        assert_null(tu_solver_new(g, "join", opts, &e));
        assert_int_equal(e.code, ERR_USAGE);
        assert_non_null(strstr(e.msg, bad[i][1]));
    }
    graph_free(g);
}

TU_MAIN(TU_TEST(test_min_slots)
        TU_TEST(test_k1_is_opt0)
        TU_TEST(test_chaindp)
        TU_TEST(test_join3)
        TU_TEST(test_siamese)
        TU_TEST(test_join_vs_brute)
        TU_TEST(test_refuse)
        TU_TEST(test_hetero_revolve)
        TU_TEST(test_siamese_hetero)
        TU_TEST(test_join3_hetero)
        TU_TEST(test_equal_stages)
        TU_TEST(test_options))
