/* test_cover.c — the cover bound (solvers/checkmate/cover.c): never above
 * the cheapest plan in its order (an exact search on tiny graphs), never
 * above any solver's plan, above the order's plain cost where memory is
 * short, and a clear refusal when a step cannot fit; the cover's plan:
 * valid, never below that optimum, mostly at it; the cascade rows: an
 * exact value on a chain, never above the optimum. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solvers/checkmate/checkmate.h"
#include "src/plan/sim.h"
#include "tests/bench/gen.h"
#include "tests/unit/brute.h"
#include "tests/unit/testutil.h"

/* One tiny case: a graph whose order the exhaustive search handles, a
 * budget, and that order's optimum there (-1: nothing in it fits). */
typedef struct {
    const Graph *g;
    const int *ord;
    int m, it;
    int64_t b;
    double opt, bc;     /* bc: the order's plain cost */
} Case;

/* fn over 40 generated graphs (chains from seed; layered ones seeded by
 * their index plus base) at six budgets each, from the smallest peak to
 * the baseline's. */
static void each_case(unsigned seed, unsigned base, void (*fn)(const Case *c, void *ctx), void *ctx)
{
    for (int it = 0; it < 40; it++) {
        Graph *g = it % 2 ? tu_random_chain_training(&seed, 2 + it % 4, it % 3 == 0)
                          : gen_training(it % 4 ? "random" : "resnet", 3, (unsigned)it + base);
        int m;
        int *ord = sim_baseline_order(g, &m);
        if (m <= BRUTE_ORDER_MAX) {
            int64_t bp, lo = graph_min_peak(g, NULL);
            double bc;
            sim_baseline(g, &bp, &bc);
            for (int64_t b = lo; b <= bp; b += 1 + (bp - lo) / 5) {
                Case c = {g, ord, m, it, b, brute_order_optimum(g, ord, m, b), bc};
                fn(&c, ctx);
            }
        }
        free(ord);
        graph_free(g);
    }
}

typedef struct {
    int cases, above_plain, fits, at_opt;
} CoverTally;

static void cover_case(const Case *k, void *ctx)
{
    CoverTally *t = ctx;
    const Graph *g = k->g;
    int64_t b = k->b;
    double opt = k->opt, lb = -1;
    Err e;
    int rc = cover_bound(g, k->ord, k->m, b, 300, NULL, &lb, NULL, &e);   /* 300 s: a hang */
    if (opt < 0) {
        /* nothing fits this order: the bound may say so or not */
        assert_true(rc == ERR_OK || rc == ERR_OVER_BUDGET);
        return;
    }
    assert_int_equal(rc, ERR_OK);
    if (lb > opt * (1 + 1e-9))
        fail_msg("case %d budget %lld: bound %.17g above the order's optimum %.17g", k->it, (long long)b, lb, opt);
    assert_true(lb >= k->bc * (1 - 1e-9));
    t->above_plain += lb > k->bc * (1 + 1e-9);
    t->cases++;
    /* the cover's plan: valid, in the order, so never below its optimum;
     * at it where the bound is */
    Plan p;
    plan_init(&p);
    double pb;
    assert_int_equal(cover_plan(g, b, 10, NULL, &p, &pb, &e), ERR_OK);
    assert_true(pb == lb);
    double c = 0;
    int64_t pk = tu_check_peak(g, p.steps, p.T, &c);
    assert_true(pk >= 0);
    if (pk <= b) {
        if (c < opt * (1 - 1e-9))
            fail_msg("case %d budget %lld: cover plan %.17g below the order's optimum %.17g", k->it, (long long)b,
                     c, opt);
        t->fits++;
        t->at_opt += c <= opt * (1 + 1e-9);
    }
    plan_done(&p);
}

static void test_below_order_optimum(void **st TU_UNUSED)
{
    CoverTally t = {0};
    each_case(7, 0, cover_case, &t);
    assert_true(t.cases >= 70);
    /* the cover's plan fits and is the order's optimum in most cases (65
     * of 75 when written) */
    assert_true(t.fits >= t.cases * 4 / 5 && t.at_opt >= t.cases * 3 / 4);
    /* where memory is short the bound says more than "every node once" */
    assert_true(t.above_plain >= t.cases / 4);
}

/* No solver's plan is cheaper than the bound over its own order and the
 * graph's. */
static void test_below_every_plan(void **st TU_UNUSED)
{
    const char *solvers[] = {"greedy", "chen", "echo", "kusumoto-approx", "twremat", "fastsa", "checkmate"};
    const char *timed[] = {"time_limit=2", NULL};
    int checked = 0;
    for (int k = 0; k < 3; k++) {
        Graph *g = gen_training(k == 0 ? "transformer" : k == 1 ? "resnet" : "random", 6, 3);
        int64_t bp, lo = graph_min_peak(g, NULL);
        double bc;
        sim_baseline(g, &bp, &bc);
        for (int h = 3; h <= 9; h += 2) {
            int64_t b = lo + (bp - lo) * h / 10;
            for (size_t j = 0; j < sizeof solvers / sizeof *solvers; j++) {
                Plan p;
                plan_init(&p);
                int t = !strcmp(solvers[j], "fastsa") || !strcmp(solvers[j], "checkmate");
                if (tu_solve(g, solvers[j], b, &p, t ? timed : NULL) == ERR_OK && p.peak <= b) {
                    double lb;
                    Err e;
                    assert_int_equal(cover_bound_plan(g, p.steps, p.T, b, -1, 300, NULL, &lb, NULL, &e), ERR_OK);
                    if (lb > p.cost * (1 + 1e-9))
                        fail_msg("%s at %lld: bound %.17g above its plan's cost %.17g", solvers[j],
                                 (long long)b, lb, p.cost);
                    checked++;
                }
                plan_done(&p);
            }
        }
        graph_free(g);
    }
    assert_true(checked >= 30);
}

/* The cascade rows (cascade.c): S3 must go at BIG and RED, and its rerun
 * after them needs S2 and S1 again (P is held anyway). The cover charges
 * the rerun one node; the cascade's LP charges the chain: at RED,
 * 10 y(S3) + x(P) - 10 h(S2) - 10 h(S1) >= 8 gives y(S3) >= 0.8 with
 * nothing held, so y(S2), y(S1) >= 0.8 too: 2.4, where the order's
 * optimum reruns all three (3). */
static void test_cascade_chain(void **st TU_UNUSED)
{
    Graph *g = tu_graph("!x; P:x; S1=10:P; S2=10:S1; S3=10:S2; BIG=25:P; RED:BIG; OUT:RED,S3,P");
    int m;
    int *ord = sim_baseline_order(g, &m);
    double extra = -1, lb = -1;
    Err e;
    assert_int_equal(cascade_bound(g, ord, m, 30, 300, NULL, NULL, &extra, NULL, &e), ERR_OK);
    if (fabs(extra - 2.4) > 1e-6)
        fail_msg("cascade bound %.17g, want 2.4", extra);
    assert_true(brute_order_optimum(g, ord, m, 30) == m + 3);
    /* the cover bound itself is the order's optimum here (small orders
     * are searched exactly) */
    assert_int_equal(cover_bound(g, ord, m, 30, 300, NULL, &lb, NULL, &e), ERR_OK);
    assert_true(lb == m + 3);
    /* a budget the step running BIG cannot fit */
    assert_int_equal(cascade_bound(g, ord, m, 26, 300, NULL, NULL, &extra, NULL, &e), ERR_OVER_BUDGET);
    assert_string_equal(e.msg, "no plan in this order fits: BIG needs 27 bytes with its inputs alone");
    free(ord);
    graph_free(g);
}

/* An answer's bound has about a second: the cascade gets what the cover
 * leaves of it, however little. The chain above with 70 free nodes after
 * it (size 0: they change no step's memory, but put the order past the
 * exact search): the cover alone charges the rerun one node, the cascade
 * the chain, 2.4, in 0.9 s as in 300. */
static void test_cascade_short(void **st TU_UNUSED)
{
    char spec[2048];
    int k = snprintf(spec, sizeof spec, "!x; P:x; S1=10:P; S2=10:S1; S3=10:S2; BIG=25:P; RED:BIG; OUT:RED,S3,P");
    for (int i = 0; i < 70; i++)
        k += snprintf(spec + k, sizeof spec - (size_t)k, "; Z%d=0:%s", i, i ? "" : "x");
    Graph *g = tu_graph(spec);
    int m;
    int *ord = sim_baseline_order(g, &m);
    double lb = -1;
    int whole = 0;
    Err e;
    assert_true(m > ORDER_SEARCH_MAX);
    assert_int_equal(cover_bound(g, ord, m, 30, 300, NULL, &lb, &whole, &e), ERR_OK);
    if (!whole || fabs(lb - (m + 2.4)) > 1e-6)
        fail_msg("300 s: bound %.17g (whole %d), want %d + 2.4", lb, whole, m);
    assert_int_equal(cover_bound(g, ord, m, 30, 0.9, NULL, &lb, &whole, &e), ERR_OK);
    if (!whole || fabs(lb - (m + 2.4)) > 1e-6)
        fail_msg("0.9 s: bound %.17g (whole %d), want %d + 2.4", lb, whole, m);
    free(ord);
    graph_free(g);
}

typedef struct {
    int cases, above;
} CascadeTally;

static void cascade_case(const Case *k, void *ctx)
{
    CascadeTally *t = ctx;
    double extra = -1;
    Err e;
    int rc = cascade_bound(k->g, k->ord, k->m, k->b, 300, NULL, NULL, &extra, NULL, &e);
    if (k->opt < 0) {
        assert_true(rc == ERR_OK || rc == ERR_OVER_BUDGET);
        return;
    }
    assert_int_equal(rc, ERR_OK);
    if (k->bc + extra > k->opt * (1 + 1e-9))
        fail_msg("case %d budget %lld: cascade bound %.17g above the order's optimum %.17g", k->it, (long long)k->b,
                 k->bc + extra, k->opt);
    t->above += extra > 1e-9;
    t->cases++;
}

/* The cascade rows never put the bound above the order's optimum (exact
 * search on tiny graphs), and where memory is short they say more than
 * "every node once". */
static void test_cascade_below_optimum(void **st TU_UNUSED)
{
    CascadeTally t = {0};
    each_case(11, 100, cascade_case, &t);
    assert_true(t.cases >= 70);
    assert_true(t.above >= t.cases / 4);
}

/* The cascade's rounds (one LP in one child, rows and columns added to it
 * round by round and solved on from the last basis) end at the whole
 * model's optimum whatever the first round holds: from the steps a hint
 * of nothing dropped breaks, from everything dropped, and from the steps
 * that must free the most (no hint) the values agree. The graphs have
 * up to hundreds of steps over the budget, so runs take more than one
 * round. */
static void test_cascade_rounds(void **st TU_UNUSED)
{
    const char *kinds[] = {"transformer", "resnet", "random"};
    for (int it = 0; it < 6; it++) {
        Graph *g = gen_training(kinds[it % 3], 60 + 20 * it, 7u + (unsigned)it);
        int m;
        int *ord = sim_baseline_order(g, &m);
        int64_t bp, lo = graph_min_peak(g, NULL);
        double bc;
        sim_baseline(g, &bp, &bc);
        unsigned char *zeros = calloc((size_t)m, 1), *ones = malloc((size_t)m);
        memset(ones, 1, (size_t)m);
        for (int q = 0; q <= 2; q++) {
            int64_t b = lo + (bp - lo) * q / 8;
            double v[3];
            Err e;
            const unsigned char *hints[3] = {NULL, zeros, ones};
            for (int h = 0; h < 3; h++)
                assert_int_equal(cascade_bound(g, ord, m, b, 300, NULL, hints[h], &v[h], NULL, &e), ERR_OK);
            for (int h = 1; h < 3; h++)
                if (fabs(v[h] - v[0]) > 1e-6 * fmax(1, bc))
                    fail_msg("graph %d budget %lld: cascade bound %.17g from hint %d, %.17g without", it,
                             (long long)b, v[h], h, v[0]);
            assert_true(v[0] > 0);
        }
        free(zeros);
        free(ones);
        free(ord);
        graph_free(g);
    }
}

/* The cascade LP's plan (cascade_plan): on the chain of test_cascade_chain
 * the LP runs S1, S2 and S3 again by 0.8 each, so the plan reruns all
 * three after RED: the order's optimum, m + 3, within the budget. On
 * generated graphs its plans are valid (the independent checker), and
 * within the budget never below the cascade bound of the same order. */
static void test_cascade_plan(void **st TU_UNUSED)
{
    Graph *g = tu_graph("!x; P:x; S1=10:P; S2=10:S1; S3=10:S2; BIG=25:P; RED:BIG; OUT:RED,S3,P");
    int m;
    int *ord = sim_baseline_order(g, &m);
    Plan p;
    plan_init(&p);
    Err e;
    double cb;
    assert_int_equal(cascade_plan(g, 30, 300, 300, NULL, &p, &cb, &e), ERR_OK);
    tu_check_within(g, &p, 30);
    assert_true(p.cost == m + 3);
    if (fabs(cb - (m + 2.4)) > 1e-6)
        fail_msg("cascade plan's bound %.17g, want %d + 2.4", cb, m);
    free(ord);
    graph_free(g);
    const char *kinds[] = {"transformer", "resnet", "random"};
    int fits = 0;
    for (int it = 0; it < 6; it++) {
        g = gen_training(kinds[it % 3], 60 + 20 * it, 11u + (unsigned)it);
        ord = sim_baseline_order(g, &m);
        int64_t bp, lo = graph_min_peak(g, NULL);
        double bc;
        sim_baseline(g, &bp, &bc);
        for (int q = 1; q <= 5; q++) {
            int64_t b = lo + (bp - lo) * q / 6;
            double extra;
            plan_reset(&p);
            int rc = cascade_plan(g, b, 300, 300, NULL, &p, &cb, &e);
            assert_true(rc == ERR_OK || rc == ERR_OVER_BUDGET);
            if (rc != ERR_OK)
                continue;
            tu_check_plan(g, &p);
            /* with no time for the later rounds, the first LP's plan alone:
             * cascade_plan_at's at the budget, step for step */
            Plan one, at;
            plan_init(&one);
            plan_init(&at);
            double cb1, cba;
            assert_int_equal(cascade_plan(g, b, 300, 0, NULL, &one, &cb1, &e), ERR_OK);
            assert_int_equal(cascade_plan_at(g, b, b, 300, NULL, &at, &cba, &e), ERR_OK);
            assert_int_equal(one.T, at.T);
            assert_memory_equal(one.steps, at.steps, (size_t)at.T * sizeof *at.steps);
            assert_true(cb1 == cba && cb1 == cb);
            if (p.cost > one.cost * (1 + 1e-12) && one.peak <= b)
                fail_msg("graph %d budget %lld: the rounds' plan %.17g dearer than the first's %.17g", it,
                         (long long)b, p.cost, one.cost);
            plan_done(&one);
            plan_done(&at);
            if (p.peak > b)
                continue;
            assert_int_equal(cascade_bound(g, ord, m, b, 300, NULL, NULL, &extra, NULL, &e), ERR_OK);
            if (fabs(cb - (bc + extra)) > 1e-6 * bc)
                fail_msg("graph %d budget %lld: cascade plan's bound %.17g, the cascade bound %.17g", it,
                         (long long)b, cb, bc + extra);
            if (p.cost < (bc + extra) * (1 - 1e-9))
                fail_msg("graph %d budget %lld: cascade plan %.17g below its order's bound %.17g", it, (long long)b,
                         p.cost, bc + extra);
            fits++;
        }
        free(ord);
        graph_free(g);
    }
    plan_done(&p);
    assert_true(fits >= 6);
}

/* Where every rounding of the LP at the budget lifts the peak over it
 * (the reruns' own steps), the lower model budgets' rounds find a plan
 * within it; on generated graphs at tight budgets that happens (5 of the
 * 12 such cells here; the walks leave only hard ones over), and
 * the plan is never below the order's bound at the budget. Each better
 * plan within the budget is offered as it comes, the last one the
 * answer. */
static void test_cascade_lowered(void **st TU_UNUSED)
{
    const char *kinds[] = {"transformer", "resnet", "random"};
    int over = 0, rescued = 0;
    Plan at, p;
    plan_init(&at);
    plan_init(&p);
    Err e;
    for (int it = 0; it < 27; it++) {
        Graph *g = gen_training(kinds[it % 3], 20 + 10 * (it % 9), 11u + (unsigned)it);
        int64_t bp, lo = graph_min_peak(g, NULL);
        double bc, lb, cb;
        sim_baseline(g, &bp, &bc);
        for (int q = 1; q <= 4; q++) {
            int64_t b = lo + (bp - lo) * q / 10;
            int rc = cascade_plan_at(g, b, b, 300, NULL, &at, &lb, &e);
            if (rc != ERR_OK || at.peak <= b)
                continue;
            over++;
            tu_check_plan(g, &at);
            TuOffers o = {.g = g, .budget = b, .origin = "cascade"};
            Progress pr;
            tu_listen(&pr, &o);
            assert_int_equal(cascade_plan(g, b, 300, 300, &pr, &p, &cb, &e), ERR_OK);
            tu_check_plan(g, &p);
            if (p.peak <= b ? o.n == 0 || o.last != p.cost : o.n != 0)
                fail_msg("graph %d budget %lld: %d offers, the last %.17g; the plan %.17g at peak %lld", it,
                         (long long)b, o.n, o.last, p.cost, (long long)p.peak);
            /* the bound is the LP's at the budget, not a lowered one's */
            if (fabs(cb - lb) > 1e-9 * bc)
                fail_msg("graph %d budget %lld: bound %.17g, the LP's at the budget %.17g", it, (long long)b, cb, lb);
            assert_true(p.peak <= at.peak);
            if (p.peak <= b) {
                rescued++;
                if (p.cost < cb * (1 - 1e-9))
                    fail_msg("graph %d budget %lld: plan %.17g below its order's bound %.17g", it, (long long)b,
                             p.cost, cb);
            }
        }
        graph_free(g);
    }
    plan_done(&at);
    plan_done(&p);
    /* at the budget the walks leave few roundings over it (12 of 108
     * here); the ones left are the hard ones */
    if (over < 8 || rescued < over / 3)
        fail_msg("%d roundings over the budget, %d brought within it by lower model budgets", over, rescued);
}

static void test_refusals(void **st TU_UNUSED)
{
    /* B reads A (size 4) and is 4 itself: no step running B fits in 7 */
    Graph *g = tu_graph("A=4; B=4:A; C=1:B");
    int m;
    int *ord = sim_baseline_order(g, &m);
    double lb;
    Err e;
    assert_int_equal(cover_bound(g, ord, m, 7, 300, NULL, &lb, NULL, &e), ERR_OVER_BUDGET);
    assert_string_equal(e.msg, "no plan in this order fits: B needs 8 bytes with its inputs alone");
    /* a plan that leaves a node out has no order to bound */
    int steps[] = {ord[0], ord[1]};
    assert_int_equal(cover_bound_plan(g, steps, 2, 100, -1, 1, NULL, &lb, NULL, &e), ERR_UNSUPPORTED);
    assert_string_equal(e.msg, "no bound: the plan does not run every node");
    free(ord);
    graph_free(g);
}

TU_MAIN(TU_TEST(test_below_order_optimum)
        TU_TEST(test_below_every_plan)
        TU_TEST(test_cascade_chain)
        TU_TEST(test_cascade_below_optimum)
        TU_TEST(test_cascade_rounds)
        TU_TEST(test_cascade_plan)
        TU_TEST(test_cascade_lowered)
        TU_TEST(test_cascade_short)
        TU_TEST(test_refusals))
