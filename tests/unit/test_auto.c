/* test_auto.c — the portfolio solver: on the teaching samples and small
 * models, never dearer than any of its members run alone (and than
 * standalone fastsa with the same iteration limits), its plan re-validated
 * independently and named after the member that made it; a re-solve for a
 * new budget answers from the pool and fits; bad options refused. */
#include <math.h>

#include "tests/unit/testutil.h"

#include "solvers/checkmate/checkmate.h"
#include "src/base/clock.h"
#include "src/graph/graph_io.h"
#include "src/plan/relay.h"
#include "tests/bench/gen.h"

static const char *const SAMPLES[] = {
    "samples/kumar_fig1.json", "samples/chain32.json", "samples/unet_small.json",
    "samples/transformer_small.json", "samples/join3.json", "samples/skip.json",
};

/* The members auto runs with their default options (deterministic). */
static const char *const MEMBERS[] = {"noremat", "chen", "echo", "greedy", "revolve",
                                      "join", "kusumoto-approx", "kusumoto-exact", "twremat"};

#define FSA "iters=20000;restarts=0;time_limit=60"

static void test_never_worse_than_members(void **st TU_UNUSED)
{
    int compared = 0;
    for (size_t gi = 0; gi < sizeof SAMPLES / sizeof *SAMPLES; gi++) {
        Err e;
        Graph *g = graph_load(SAMPLES[gi], &e);
        if (!g)
            fail_msg("%s", e.msg);
        int64_t bp = tu_baseline_peak(g);
        for (int pct = 90; pct >= 50; pct -= 20) {
            int64_t b = bp * pct / 100;
            if (b < graph_min_peak(g, NULL))
                continue;
            /* the exact member would take the rest of the 60 s on every
             * budget CBC does not prove; test_exact_member covers it */
            const char *ao[] = {"time_limit=60", "fastsa=" FSA, "exact=off", NULL};
            Plan a;
            int ra = tu_solve(g, "auto", b, &a, ao);
            assert_true(ra == ERR_OK || ra == ERR_OVER_BUDGET);
            tu_check_plan(g, &a);
            assert_non_null(a.origin);
            for (size_t k = 0; k < sizeof MEMBERS / sizeof *MEMBERS + 1; k++) {
                int fsa = k == sizeof MEMBERS / sizeof *MEMBERS;
                const char *fo[] = {"iters=20000", "restarts=0", "time_limit=60", NULL};
                Plan q;
                int rq = tu_solve(g, fsa ? "fastsa" : MEMBERS[k], b, &q, fsa ? fo : NULL);
                if (rq == ERR_OK) {
                    if (ra != ERR_OK)
                        fail_msg("%s at %d%%: %s fits, auto does not", SAMPLES[gi], pct,
                                 fsa ? "fastsa" : MEMBERS[k]);
                    if (a.cost > q.cost)
                        fail_msg("%s at %d%%: auto costs %g, %s %g", SAMPLES[gi], pct, a.cost,
                                 fsa ? "fastsa" : MEMBERS[k], q.cost);
                    compared++;
                } else if (rq == ERR_OVER_BUDGET && q.T && ra == ERR_OVER_BUDGET) {
                    assert_true(a.peak <= q.peak);
                }
                plan_done(&q);
            }
            plan_done(&a);
        }
        graph_free(g);
    }
    assert_true(compared >= 40);
}

/* On small graphs auto's cover member searches the graph's order exactly,
 * and a pick at that order's optimum must not end the solve: on the 20-node
 * random training graph half-way from the smallest peak to the baseline's,
 * that optimum is 99000001, kusumoto-exact's plan (in its own order, whose
 * optimum it is) 97000001 and fastsa's 92000001; auto once stopped at
 * kusumoto's, below the graph order's bound, and Checkmate, starting from
 * it, found no better. With and without the exact member (Checkmate on the
 * graph's order and the pool's best plan's), auto is now below the graph
 * order's optimum and never above Checkmate's, and says its plan is
 * optimal in the orders searched. */
static void test_exact_member(void **st TU_UNUSED)
{
    Graph *g = gen_training("random", 9, 7);
    int64_t bp = tu_baseline_peak(g), lo = graph_min_peak(g, NULL);
    int64_t b = lo + (bp - lo) / 2;
    /* limits that only catch a hang: each solve ends at its proof */
    const char *off[] = {"time_limit=300", "exact=off", NULL}, *on[] = {"time_limit=300", NULL},
               *cm[] = {"time_limit=300", NULL};
    int n;
    int *ord = sim_baseline_order(g, &n);
    Plan p0, p1, pc, po;
    plan_init(&po);
    Err e;
    double gopt;
    assert_int_equal(order_search(g, ord, n, b, INFINITY, 10, 1000000, NULL, &po, &gopt, &e), ERR_OK);
    assert_int_equal(tu_solve(g, "auto", b, &p0, off), ERR_OK);
    assert_int_equal(tu_solve(g, "auto", b, &p1, on), ERR_OK);
    assert_int_equal(tu_solve(g, "checkmate", b, &pc, cm), ERR_OK);
    Plan pf;
    assert_int_equal(tu_solve(g, "fastsa", b, &pf, NULL), ERR_OK);
    tu_check_within(g, &p0, b);
    tu_check_within(g, &p1, b);
    assert_true(pc.optimal);
    double best = fmin(pc.cost, pf.cost) * (1 + 1e-9);
    if (!(p0.cost < gopt && p0.cost <= best && p1.cost <= best))
        fail_msg("auto %.0f (%s), without the exact member %.0f, checkmate's optimum %.0f, fastsa's %.0f, "
                 "the graph order's optimum %.0f", p1.cost, p1.origin ? p1.origin : "?", p0.cost, pc.cost,
                 pf.cost, gopt);
    assert_true(p1.optimal && p1.bound > 0 && p1.bound <= p1.cost);
    assert_true(p0.optimal && p0.bound > 0 && p0.bound <= p0.cost * (1 + 1e-9));
    plan_done(&p0);
    plan_done(&p1);
    plan_done(&pc);
    plan_done(&pf);
    plan_done(&po);
    free(ord);
    graph_free(g);
}

/* A re-solve for a budget the pool already covers is a pick: it fits and
 * names its maker. */
static void test_resolve_from_pool(void **st TU_UNUSED)
{
    Err e;
    Graph *g = graph_load("samples/transformer_small.json", &e);
    assert_non_null(g);
    int64_t bp = tu_baseline_peak(g);
    const char *opts[] = {"time_limit=2", NULL};
    Solver *s = tu_solver(g, "auto", opts);
    Plan p, q;
    plan_init(&p);
    plan_init(&q);
    assert_int_equal(solver_plan(s, bp * 80 / 100, NULL, &p, NULL, &e), ERR_OK);
    int pooled = s->cands.n;
    assert_true(pooled >= 3);
    assert_int_equal(solver_plan(s, bp * 82 / 100, &p, &q, NULL, &e), ERR_OK);
    assert_true(q.peak <= bp * 82 / 100);
    assert_true(q.cost <= p.cost);   /* the earlier plan fits the larger budget too */
    assert_non_null(q.origin);
    tu_check_plan(g, &q);
    tu_end(g, s, &p, &q, NULL);
}

/* A bound a re-solve carries is one at its own budget: never above the
 * cover bound computed afresh there (the earlier budget's is higher). With
 * greedy alone and FastSA held back, the re-solves keep the first plan. */
static void test_resolve_bound_is_its_budgets(void **st TU_UNUSED)
{
    Err e;
    Graph *g = graph_load("samples/chain32.json", &e);
    assert_non_null(g);
    const char *opts[] = {"members=greedy,fastsa", "fastsa=iters=1;restarts=0", "resolve_time=0.001", NULL};
    Solver *s = tu_solver(g, "auto", opts);
    Plan p, q;
    plan_init(&p);
    plan_init(&q);
    assert_int_equal(solver_plan(s, 26, NULL, &p, NULL, &e), ERR_OK);
    assert_true(p.bound > 0);
    for (int64_t b = 27; b <= 34; b++) {
        assert_int_equal(solver_plan(s, b, &p, &q, NULL, &e), ERR_OK);
        double fresh;
        assert_int_equal(cover_bound_plan(g, q.steps, q.T, b, -1, 10, NULL, &fresh, NULL, &e), ERR_OK);
        if (q.bound > fresh * (1 + 1e-9))
            fail_msg("at %lld: the plan carries bound %.17g, the cover bound there is %.17g", (long long)b, q.bound,
                     fresh);
        plan_done(&p);
        p = q;
        plan_init(&q);
    }
    tu_end(g, s, &p, NULL);
}

/* A re-solve never answers with a plan dearer than one auto holds for
 * the budget: its pool's plans and the plans adopted from other solvers
 * (the session hands auto every final plan it finds). */
static void test_never_dearer_than_held(void **st TU_UNUSED)
{
    Err e;
    Graph *g = graph_load("samples/transformer_small.json", &e);
    assert_non_null(g);
    int64_t bp = tu_baseline_peak(g);
    const char *opts[] = {"members=greedy,fastsa", "fastsa=iters=2000;restarts=0", "resolve_time=0.001", NULL};
    Solver *s = tu_solver(g, "auto", opts);
    Plan p, q;
    plan_init(&p);
    plan_init(&q);
    assert_int_equal(solver_plan(s, bp * 90 / 100, NULL, &p, NULL, &e), ERR_OK);
    static const char *const others[] = {"chen", "revolve", "twremat", "kusumoto-approx", "echo"};
    for (int pct = 85; pct >= 75; pct -= 5) {
        int64_t b = bp * pct / 100;
        double held = INFINITY;
        for (size_t k = 0; k < sizeof others / sizeof *others; k++) {
            Plan o;
            plan_init(&o);
            if (tu_solve(g, others[k], b, &o, NULL) == ERR_OK) {
                solver_find("auto")->adopt(s, o.steps, o.T, solver_find(others[k])->name);
                held = fmin(held, o.cost);
            }
            plan_done(&o);
        }
        int rc = solver_plan(s, b, &p, &q, NULL, &e);
        tu_check_plan(g, &q);
        for (int i = 0; i < s->cands.n; i++)
            if (s->cands.c[i].peak <= b)
                held = fmin(held, s->cands.c[i].cost);
        /* over the budget only when nothing held fits it */
        if (rc == ERR_OVER_BUDGET && isfinite(held))
            fail_msg("at %d %%: auto answers over the budget, it holds a plan of %.17g within it", pct, held);
        assert_true(rc == ERR_OK || rc == ERR_OVER_BUDGET);
        if (rc == ERR_OK && q.cost > held * (1 + 1e-12))
            fail_msg("at %d %%: auto answers %.17g, it holds a plan of %.17g", pct, q.cost, held);
        plan_done(&p);
        p = q;
        plan_init(&q);
    }
    tu_end(g, s, &p, NULL);
}

/* The structure shown is the plan's own: on Figure 1 at 3 the winner is
 * greedy's plan, which twremat also makes; the structure is greedy's (it
 * has none), never twremat's tree decomposition. */
static void test_structure_is_the_winners(void **st TU_UNUSED)
{
    Err e;
    Graph *g = graph_load("samples/kumar_fig1.json", &e);
    assert_non_null(g);
    const char *opts[] = {"exact=off", "fastsa=iters=2000;restarts=0", NULL};
    Solver *s = tu_solver(g, "auto", opts);
    Plan p;
    plan_init(&p);
    assert_int_equal(solver_plan(s, 3, NULL, &p, NULL, &e), ERR_OK);
    assert_non_null(p.origin);
    Overlay ov;
    overlay_init(&ov);
    solver_find("auto")->describe(s, &ov);
    assert_non_null(ov.title);
    char want[64];
    snprintf(want, sizeof want, "auto, %s's plan", p.origin);
    assert_non_null(strstr(ov.title, want));
    if (strcmp(p.origin, "twremat"))
        assert_null(strstr(ov.title, "tree decomposition"));
    overlay_done(&ov);
    tu_end(g, s, &p, NULL);
}

/* The relay passes on a plan only when it fits the budget and is cheaper
 * than the last it passed on; a helper's plans are also held, the latest
 * taken once. */
static void test_relay(void **st TU_UNUSED)
{
    /* A=4 -> B=4 -> C=1 and the gradient side: at budget 9 the order
     * fits; running A again before C costs 1 more */
    Graph *g = tu_graph("A=4; B=4:A; C=1:B");
    int n;
    int *ord = sim_baseline_order(g, &n);
    int64_t bp = tu_baseline_peak(g);
    TuOffers o = {.g = g, .budget = bp};
    Progress up;
    tu_listen(&up, &o);
    Relay r;
    relay_init(&r, g, bp, &up, -1);
    int again[8];
    memcpy(again, ord, (size_t)n * sizeof *ord);
    again[n] = ord[0];      /* one more run of A at the end: dearer */
    relay_offer(&r, again, n + 1, "one");
    relay_offer(&r, ord, n, "two");
    relay_offer(&r, again, n + 1, "three");   /* dearer than the last: dropped */
    assert_int_equal(o.n, 2);
    assert_true(relay_offered(&r) == o.last);
    Plan p;
    plan_init(&p);
    assert_int_equal(relay_take(&r, &p), 0);
    relay_offer_held(&r, again, n + 1, "helper");
    assert_int_equal(o.n, 2);
    assert_int_equal(relay_take(&r, &p), 1);
    assert_int_equal(p.T, n + 1);
    assert_int_equal(relay_take(&r, &p), 0);
    /* enough: unknown until set; then met by a search's own cost at or
     * below it, or by the cheapest plan a helper offered (the graph's
     * order costs 3, one more run of A 4; nobody listening) */
    assert_int_equal(relay_enough(&r, 0), 0);
    assert_int_equal(relay_enough(NULL, 0), 0);
    relay_done(&r);
    relay_init(&r, g, bp, NULL, -1);
    relay_bound(&r, 2.9);   /* half a thousandth above it is enough */
    assert_int_equal(relay_enough(&r, -1), 0);
    assert_int_equal(relay_enough(&r, 2.9), 1);
    assert_int_equal(relay_enough(&r, 2.9 * 1.0005), 1);
    assert_int_equal(relay_enough(&r, 2.9 * 1.0006), 0);
    relay_bound(&r, 2.5);   /* a weaker bound changes nothing */
    assert_int_equal(relay_enough(&r, 2.9), 1);
    relay_bound(&r, 3.0);
    assert_int_equal(relay_enough(&r, 3.0 * 1.0004), 1);
    /* below the bound: the plan left the bound's order, and nothing
     * says how much cheaper the search could still go */
    assert_int_equal(relay_enough(&r, 2.9), 0);
    relay_offer_held(&r, again, n + 1, "helper");
    assert_int_equal(relay_enough(&r, -1), 0);
    relay_offer_held(&r, ord, n, "helper");
    assert_int_equal(relay_enough(&r, -1), 1);
    assert_int_equal(relay_enough(&r, 3.5), 1);     /* the helper's is the cheaper */
    assert_int_equal(relay_enough(&r, 2.0), 0);     /* the search's own is below */
    /* the floor holds in every order: a plan at it is enough, and so is
     * one within the tolerance above it, with no bound told at all */
    relay_done(&r);
    relay_init(&r, g, bp, NULL, -1);
    assert_int_equal(relay_enough(&r, 2.0), 0);
    relay_set_floor(&r, 2.0);
    relay_set_floor(&r, 1.0);   /* a lower floor changes nothing */
    assert_int_equal(relay_enough(&r, 2.0), 1);
    assert_int_equal(relay_enough(&r, 2.0 * 1.0004), 1);
    assert_int_equal(relay_enough(&r, 2.0 * 1.0006), 0);
    relay_bound(&r, 3.0);       /* a plan below the order's bound, at the floor */
    assert_int_equal(relay_enough(&r, 2.0), 1);
    /* the bounds are passed on to the listener, each stronger than the
     * last (tu_on_bound checks) */
    relay_done(&r);
    relay_init(&r, g, bp, &up, -1);
    relay_bound(&r, 2.0);
    relay_bound(&r, 1.5);
    relay_bound(&r, 2.5);
    assert_int_equal(o.nbounds, 2);
    assert_true(o.bound == 2.5);
    /* over the budget: not passed on */
    relay_done(&r);
    relay_init(&r, g, bp - 1, &up, -1);
    relay_offer(&r, ord, n, "four");
    assert_int_equal(o.n, 2);
    relay_done(&r);
    free(ord);
    tu_end(g, NULL, &p, NULL);
}

/* The cascade LP's plan is made on a thread of its own beside FastSA: its
 * plans reach the listener through the relay (valid, within the budget,
 * cheaper each time, whichever thread found them), and the answer is no
 * dearer than the last one offered; with FastSA off, the answer is the
 * cascade's plan, pooled when its thread ends. */
static void test_cascade_beside(void **st TU_UNUSED)
{
    const char *alone[] = {"members=cascade", "time_limit=6", NULL};
    const char *beside[] = {"members=cascade,fastsa", "time_limit=6", "fastsa=restarts=0", NULL};
    const char *const *runs[] = {alone, beside};
    int from_cascade = 0;
    for (int it = 0; it < 3; it++) {
        Graph *g = gen_training(it == 1 ? "resnet" : "transformer", 50 + 10 * it, 5u + (unsigned)it);
        assert_true(graph_running_nodes(g) > ORDER_SEARCH_MAX);
        int64_t bp, lo = graph_min_peak(g, NULL);
        double bc;
        sim_baseline(g, &bp, &bc);
        int64_t b = lo + (bp - lo) * 4 / 10;
        for (int k = 0; k < 2; k++) {
            Solver *s = tu_solver(g, "auto", runs[k]);
            TuOffers o = {.g = g, .budget = b, .origin = k == 0 ? "cascade" : NULL};
            Progress pr;
            tu_listen(&pr, &o);
            Plan p;
            plan_init(&p);
            Err e;
            err_clear(&e);
            int rc = solver_plan(s, b, NULL, &p, &pr, &e);
            if (k == 0 && rc != ERR_OK) {   /* no rounding fits: nothing offered */
                assert_int_equal(o.n, 0);
                tu_end(NULL, s, &p, NULL);
                continue;
            }
            assert_int_equal(rc, ERR_OK);
            double c = tu_check_within(g, &p, b);
            assert_true(o.n >= 1 && c <= o.last);
            if (k == 0) {   /* the pool holds the cascade's plans alone (tidied or not) */
                assert_string_equal(p.origin, "cascade");
                from_cascade++;
                /* its LP's bound was told before the answer, and its plan,
                 * in the graph's order, is no cheaper than that */
                assert_int_equal(o.nbounds, 1);
                assert_true(c >= o.bound * (1 - 1e-9));
            } else if (strcmp(p.origin, "fastsa") == 0) {
                /* either search's plan, the second's too, is described by
                 * the search that made it */
                Overlay ov;
                overlay_init(&ov);
                solver_find("auto")->describe(s, &ov);
                assert_non_null(ov.title);
                assert_non_null(strstr(ov.title, "auto, fastsa's plan"));
                assert_non_null(strstr(ov.title, "fastsa: best of"));
                overlay_done(&ov);
            }
            tu_end(NULL, s, &p, NULL);
        }
        graph_free(g);
    }
    assert_true(from_cascade >= 2);
}

/* A listener that cancels the solve at the first plan offered: the quick
 * members' first pick, while the cascade LP runs on its thread. */
static void cancel_on_offer(void *ctx, const int *steps, int T, const char *origin)
{
    (void)steps, (void)T, (void)origin;
    atomic_store((atomic_int *)ctx, 1);
}

/* The cascade LP starts with the solve, beside the quick members: a solve
 * cancelled before FastSA runs ends its thread (and its twin, waiting for
 * starts it never gets), and one whose budget needs nothing freed ends it
 * at once and answers the baseline's plan. The sanitizer builds check that
 * nothing leaks or races. */
static void test_cascade_ended_early(void **st TU_UNUSED)
{
    Graph *g = gen_training("transformer", 60, 7u);
    assert_true(graph_running_nodes(g) > ORDER_SEARCH_MAX);
    int64_t bp, lo = graph_min_peak(g, NULL);
    double bc;
    sim_baseline(g, &bp, &bc);
    const char *opts[] = {"time_limit=30", NULL};
    for (int k = 0; k < 2; k++) {
        Solver *s = tu_solver(g, "auto", opts);
        Progress pr;
        progress_init(&pr);
        pr.offer = cancel_on_offer;
        pr.offer_ctx = &pr.cancel;
        Plan p;
        plan_init(&p);
        Err e;
        err_clear(&e);
        int64_t b = k == 0 ? lo + (bp - lo) / 4 : bp;
        int rc = solver_plan(s, b, NULL, &p, k == 0 ? &pr : NULL, &e);
        if (k == 0) {
            assert_int_equal(rc, ERR_CANCELLED);
        } else {
            assert_int_equal(rc, ERR_OK);
            assert_true(tu_check_within(g, &p, b) == bc);
        }
        tu_end(NULL, s, &p, NULL);
    }
    graph_free(g);
}

/* A pick that runs each node some output needs once is optimal: no
 * schedule costs less (graph_needed_cost). On a graph where e is needed by
 * no output that cost leaves e out (1 + 2 + 4 = 7; e costs 8); at the
 * baseline peak auto's plan costs 7, says it is optimal with that bound,
 * and on a 2.2K-node training graph, past the size where the cover and
 * the bound over every order run before FastSA, the search ends at
 * noremat's plan: in milliseconds, where FastSA, free to run most of the
 * 120 s, had taken 99 s of them (and the tiny graph's plan had no bound). */
static void test_needed_cost_ends_search(void **st TU_UNUSED)
{
    Graph *g = tu_graph_json(
        "{\"format\":\"remat-graph\",\"version\":1,\"nodes\":["
        "{\"id\":\"a\",\"phase\":\"fwd\",\"size\":4,\"cost\":1},"
        "{\"id\":\"b\",\"phase\":\"fwd\",\"size\":1,\"cost\":2,\"inputs\":[\"a\"]},"
        "{\"id\":\"e\",\"phase\":\"fwd\",\"size\":1,\"cost\":8,\"inputs\":[\"a\"]},"
        "{\"id\":\"d\",\"phase\":\"fwd\",\"size\":1,\"cost\":4,\"inputs\":[\"b\",\"a\"]}],"
        "\"outputs\":[\"d\"]}");
    assert_true(fabs(graph_needed_cost(g) - 7) < 1e-12);
    Plan p;
    const char *o[] = {"time_limit=30", NULL};
    assert_int_equal(tu_solve(g, "auto", 6, &p, o), ERR_OK);
    tu_check_within(g, &p, 6);
    assert_true(fabs(p.cost - 7) < 1e-12 && p.optimal && fabs(p.bound - 7) < 1e-12);
    plan_done(&p);
    graph_free(g);

    g = gen_training("random", 1100, 7);
    assert_true(graph_running_nodes(g) > 2000);
    int64_t bp = tu_baseline_peak(g);
    const char *big[] = {"time_limit=120", "fastsa=iters=1000000000000;stall=0;restarts=0", NULL};
    double t0 = clock_now();
    assert_int_equal(tu_solve(g, "auto", bp, &p, big), ERR_OK);
    double dt = clock_now() - t0;
    tu_check_within(g, &p, bp);
    assert_true(p.optimal && fabs(p.cost - graph_needed_cost(g)) <= 1e-9 * p.cost);
    assert_true(fabs(p.bound - p.cost) <= 1e-9 * p.cost);
    /* FastSA's share alone is 60 s: far past this on any machine */
    if (dt > 30)
        fail_msg("auto at the baseline peak took %.1f s: the search went on past noremat's optimal plan", dt);
    plan_done(&p);
    graph_free(g);
}

/* Near the baseline peak the members' plans come within half a thousandth
 * of the cascade LP's bound, and the search ends there (relay_enough)
 * instead of annealing for the rest of its time for at most that much:
 * ResNet-50 at 95 %, FastSA free to run most of 120 s, ends in 1.2 s
 * (33.8 s without the rule, where its reheats stopped finding anything),
 * its plan within the tolerance of the bound it reports. */
static void test_enough_ends_search(void **st TU_UNUSED)
{
    Err e;
    Graph *g = graph_load("samples/models/resnet50.json", &e);
    if (!g)
        fail_msg("%s", e.msg);
    int64_t b = tu_baseline_peak(g) * 95 / 100;
    const char *o[] = {"time_limit=120", "fastsa=stall=0", NULL};
    Plan p;
    double t0 = clock_now();
    assert_int_equal(tu_solve(g, "auto", b, &p, o), ERR_OK);
    double dt = clock_now() - t0;
    tu_check_within(g, &p, b);
    if (!(p.bound > 0 && p.cost <= p.bound * (1 + 5e-4)))
        fail_msg("auto's plan %.0f, its bound %.0f: not within half a thousandth", p.cost, p.bound);
    /* FastSA's runs without the rule take half a minute: far past this
     * on any machine */
    if (dt > 20)
        fail_msg("auto at 95 %% took %.1f s: the search went on past a plan at its bound", dt);
    plan_done(&p);
    graph_free(g);
}

static void test_bad_options(void **st TU_UNUSED)
{
    Graph *g = tu_graph("A; B:A");
    SolverOpts o;
    Err e;
    const char *bad[][2] = {
        {"members=greedy,nosuch", "auto: members: no member 'nosuch'"},
        {"fastsa=bogus=1", "auto: fastsa=: fastsa has no option 'bogus'"},
        {"time_limit=0", "auto: option time_limit=0: expected 0.001..1000000 (a number) or auto"},
    };
    for (int i = 0; i < 3; i++) {
        solver_opts_init(&o);
        err_clear(&e);
        assert_int_equal(solver_opts_add(&o, bad[i][0], &e), ERR_OK);
        assert_null(solver_new(solver_find("auto"), g, &o, &e));
        assert_int_equal(e.code, ERR_USAGE);
        assert_string_equal(e.msg, bad[i][1]);
        solver_opts_done(&o);
    }
    /* members= narrows the portfolio: only greedy's plan can win */
    const char *only[] = {"members=greedy", "time_limit=1", NULL};
    Plan p;
    assert_int_equal(tu_solve(g, "auto", PLAN_NO_BUDGET, &p, only), ERR_OK);
    assert_string_equal(p.origin, "greedy");
    tu_end(g, NULL, &p, NULL);
}

TU_MAIN(TU_TEST(test_never_worse_than_members)
        TU_TEST(test_exact_member)
        TU_TEST(test_resolve_from_pool)
        TU_TEST(test_resolve_bound_is_its_budgets)
        TU_TEST(test_never_dearer_than_held)
        TU_TEST(test_structure_is_the_winners)
        TU_TEST(test_relay)
        TU_TEST(test_cascade_beside)
        TU_TEST(test_cascade_ended_early)
        TU_TEST(test_needed_cost_ends_search)
        TU_TEST(test_enough_ends_search)
        TU_TEST(test_bad_options))
