/* test_fastsa.c — the FastSA solver: its segment tree against a plain
 * array, its incremental memory curve against sim_run and the independent
 * checker after random mutations, and its plans (budgets met, determinism,
 * warm start) re-validated with tu_check_peak. */
#include "testutil.h"

#include <math.h>

#include "solvers/fastsa/fastsa.h"
#include "src/graph/graph_io.h"
#include "solvers/fastsa/segtree.h"
#include "solvers/fastsa/state.h"
#include "solvers/fastsa/anneal.h"
#include "src/graph/transform.h"
#include "src/base/clock.h"

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

static void test_segtree_vs_array(void **state TU_UNUSED)
{
    unsigned seed = 7;
    int sizes[] = {1, 2, 4, 8, 32, 64, 256, 2048};
    for (int si = 0; si < 8; si++) {
        int n = sizes[si];
        SegTree st;
        segtree_init(&st, n);
        int64_t *a = calloc((size_t)n, sizeof *a);
        for (int op = 0; op < 3000; op++) {
            int l = (int)(rnd(&seed) % (unsigned)n), r = (int)(rnd(&seed) % (unsigned)n);
            if (l > r) {
                int x = l;
                l = r;
                r = x;
            }
            if (rnd(&seed) % 3 == 0) {
                int64_t v = (int64_t)(rnd(&seed) % 2001) - 1000;
                segtree_add(&st, l, r, v);
                for (int i = l; i <= r; i++)
                    a[i] += v;
            } else if (rnd(&seed) % 2) {
                /* a batch of adds whose ends are pulled once, as one
                 * mutation's are */
                int ends[8], ne = 0, top = 0, nb = 1 + (int)(rnd(&seed) % 4);
                for (int b = 0; b < nb; b++) {
                    int bl = b ? (int)(rnd(&seed) % (unsigned)n) : l;
                    int br = b ? bl + (int)(rnd(&seed) % (unsigned)(n - bl)) : r;
                    int64_t v = (int64_t)(rnd(&seed) % 2001) - 1000;
                    int k = segtree_add_tags(&st, bl, br, v);
                    top = k > top ? k : top;
                    ends[ne++] = bl;
                    ends[ne++] = br;
                    for (int i = bl; i <= br; i++)
                        a[i] += v;
                }
                segtree_pull(&st, ends, ne, top);
            } else {
                int64_t m = INT64_MIN;
                for (int i = l; i <= r; i++)
                    m = a[i] > m ? a[i] : m;
                assert_int_equal(segtree_max(&st, l, r), m);
                /* the pruned query at, just under and just over the max */
                for (int64_t dx = -1; dx <= 1; dx++)
                    assert_int_equal(segtree_exceeds(&st, l, r, m + dx), m > m + dx);
            }
            int64_t top = INT64_MIN;
            for (int i = 0; i < n; i++)
                top = a[i] > top ? a[i] : top;
            assert_int_equal(segtree_top(&st), top);
        }
        free(a);
        segtree_done(&st);
    }
}

static void test_segtreef_vs_array(void **state TU_UNUSED)
{
    unsigned seed = 17;
    int n = 64;
    SegTreeF st;
    segtreef_init(&st, n, -50);
    double a[64];
    for (int i = 0; i < n; i++)
        a[i] = -50;
    for (int op = 0; op < 2000; op++) {
        int l = (int)(rnd(&seed) % 64u), r = (int)(rnd(&seed) % 64u);
        if (l > r) {
            int x = l;
            l = r;
            r = x;
        }
        double v = ((double)(rnd(&seed) % 2001) - 1000) / 100;
        segtreef_add(&st, l, r, v);
        for (int i = l; i <= r; i++)
            a[i] += v;
        double m = a[0], sum = 0;
        for (int i = 1; i < n; i++)
            m = a[i] > m ? a[i] : m;
        for (int i = 0; i < n; i++)
            sum += exp(a[i] - m);
        double want = m + log(sum);
        assert_true(fabs(segtreef_top(&st) - want) < 1e-6 * (1 + fabs(want)));
        /* a soft max: at least the max, at most max + log n */
        assert_true(segtreef_top(&st) >= m - 1e-9 && segtreef_top(&st) <= m + log(64) + 1e-9);
    }
    segtreef_done(&st);
}

/* Random forward DAG (sizes, costs and workspaces vary). With
 * read_outputs, some nodes that later nodes read are outputs too (a joint
 * graph's parameter gradients are read by their operator's getitems): the
 * last copy of such an output is held to the end although reads follow. */
static Graph *random_forward(unsigned *seed, int n, int read_outputs)
{
    Graph *f = graph_new();
    Err e;
    err_clear(&e);
    graph_add_node(f, "x", "input", PHASE_INPUT, 1 + rnd(seed) % 4, 0, 0, NULL, &e);
    for (int i = 0; i < n; i++) {
        char id[16], in[16];
        snprintf(id, sizeof id, "f%d", i);
        int v = graph_add_node(f, id, NULL, PHASE_FWD, 1 + rnd(seed) % 6, 1 + rnd(seed) % 3,
                               rnd(seed) % 3 == 0 ? rnd(seed) % 5 : 0, NULL, &e);
        assert_true(v >= 0);
        int k = 1 + (int)(rnd(seed) % 2);
        for (int j = 0; j < k; j++) {
            int u = (int)(rnd(seed) % (unsigned)(i + 1)) - 1;
            if (u < 0)
                snprintf(in, sizeof in, "x");
            else
                snprintf(in, sizeof in, "f%d", u);
            graph_add_input_name(f, v, in);
        }
        if (read_outputs && (i == n - 1 || rnd(seed) % 3 == 0))
            graph_add_output_name(f, id);
    }
    if (graph_finalize(f, &e))
        fail_msg("finalize: %s", e.msg);
    return f;
}

/* A random forward DAG made a training graph. */
static Graph *random_training(unsigned *seed, int n)
{
    return tu_make_training(random_forward(seed, n, 0));
}

static void test_incremental_peak_matches_sim(void **state TU_UNUSED)
{
    unsigned seed = 11;
    int walks = 0, recomputing = 0;
    for (int gi = 0; gi < 80; gi++) {
        Graph *g = gi < 40 ? random_training(&seed, 3 + (int)(rnd(&seed) % 12))
                           : random_forward(&seed, 3 + (int)(rnd(&seed) % 12), 1);
        int steps[] = {0, 30, 300, 3000};
        for (int k = 0; k < 4; k++) {
            int *sched, T;
            int64_t *mem, peak;
            fastsa_random_walk(g, steps[k], 1000u * (unsigned)gi + (unsigned)k, 1 + gi % 4, &sched,
                               &T, &mem, &peak);
            Sim s;
            Err e;
            err_clear(&e);
            int rc = sim_run(g, sched, T, &s, &e);
            if (rc)
                fail_msg("graph %d walk %d: %s", gi, k, e.msg);
            assert_int_equal(s.peak, peak);
            for (int t = 0; t < T; t++)
                assert_int_equal(s.mem[t], mem[t]);
            assert_int_equal(tu_check_peak(g, sched, T, NULL), peak);
            recomputing += s.recomputations > 0;
            walks++;
            sim_done(&s);
            free(sched);
            free(mem);
        }
        graph_free(g);
    }
    assert_int_equal(walks, 320);
    assert_true(recomputing > 80); /* the walks really did recompute */
}

/* state_delta_fits judges an add or a remove without making it: on random
 * states of random graphs, at limits around the peak before and after,
 * it answers exactly what making the mutation and reading the peak
 * answers; the deltas made (state_add/remove go through them) keep the
 * curve equal to a plain re-simulation (test_incremental_peak_matches_sim). */
/* A random graph of 3-16 nodes (training or forward-only) and a state
 * of its own order with slack slots a step; the caller frees all three. */
static Graph *random_state(unsigned *seed, int training, int slack, Units *U, State *S)
{
    Graph *g = training ? random_training(seed, 3 + (int)(rnd(seed) % 14))
                        : random_forward(seed, 3 + (int)(rnd(seed) % 14), 1);
    units_plain(U, g);
    state_init_baseline(S, U, slack);
    return g;
}

/* The memory curve of S equals that of a state built afresh from the
 * same slots (each interval computed once, by adds in slot order). */
static void assert_curve_fresh(const State *S)
{
    State F;
    state_init(&F, S->U, S->T);
    for (int t = 0; t < S->T; t++)
        if (S->seq[t] >= 0)
            state_add(&F, S->seq[t], t);
    for (int t = 0; t < S->T; t++)
        assert_int_equal(state_mem_at(S, t), state_mem_at(&F, t));
    state_done(&F);
}

/* A local move judged by its delta says what making it gives; made from
 * the delta, the curve is the one a fresh build of the new slots has, and
 * moving back restores the old curve. */
static void test_move_delta(void **state TU_UNUSED)
{
    unsigned seed = 31;
    long long moves = 0, fits = 0, misses = 0;
    for (int gi = 0; gi < 40; gi++) {
        Units U;
        State S;
        Graph *g = random_state(&seed, gi % 2, 2 + gi % 3, &U, &S);
        Rng rng = {(uint64_t)gi + 7};
        for (int step = 0; step < 300; step++) {
            /* recomputations now and then, so values have several copies */
            int t = rng_below(&rng, S.T), u = rng_below(&rng, U.n_units);
            if (S.seq[t] < 0 && state_can_add(&S, u, t) && rng_below(&rng, 3) == 0)
                state_add(&S, u, t);
            if (!S.count)
                continue;
            int t1 = S.occ[rng_below(&rng, S.count)], t2 = t1 - 3 + rng_below(&rng, 7);
            if (t2 < 0 || t2 >= S.T || S.seq[t2] >= 0 || !state_move_local(&S, t1, t2))
                continue;
            int64_t before = state_peak(&S);
            state_move_delta(&S, t1, t2, &S.scratch);
            Delta d = S.scratch;
            int verdict[3];
            for (int k = 0; k < 3; k++)
                verdict[k] = state_delta_fits(&S, &d, before - 1 + k);
            state_move_with(&S, t1, t2, &d);
            int64_t after = state_peak(&S);
            for (int k = 0; k < 3; k++) {
                assert_int_equal(verdict[k], after <= before - 1 + k);
                fits += verdict[k];
                misses += !verdict[k];
            }
            if (step % 7 == 0)
                assert_curve_fresh(&S);
            /* back: local too, and the old curve again */
            assert_true(state_move_local(&S, t2, t1));
            assert_int_equal(state_move(&S, t2, t1), 1);
            assert_int_equal(state_peak(&S), before);
            if (rng_below(&rng, 2))
                assert_int_equal(state_move(&S, t1, t2), 1);
            moves++;
        }
        assert_curve_fresh(&S);
        state_done(&S);
        units_done(&U);
        graph_free(g);
    }
    assert_true(moves > 2000);
    assert_true(fits > 1000 && misses > 300);   /* both answers were tested */
}

static void test_delta_judges_as_made(void **state TU_UNUSED)
{
    unsigned seed = 23;
    long long judged = 0, fits = 0, misses = 0;
    for (int gi = 0; gi < 60; gi++) {
        Units U;
        State S;
        Graph *g = random_state(&seed, gi < 30, 1 + gi % 4, &U, &S);
        Rng rng = {(uint64_t)gi + 1};
        for (int step = 0; step < 400; step++) {
            int add = rng_below(&rng, 2), t, u = -1;
            if (add) {
                t = rng_below(&rng, S.T);
                u = rng_below(&rng, U.n_units);
                if (S.seq[t] >= 0 || !state_can_add(&S, u, t))
                    continue;
                state_add_delta(&S, u, t, &S.scratch);
            } else {
                if (!S.count)
                    continue;
                t = S.occ[rng_below(&rng, S.count)];
                if (!state_can_remove(&S, t))
                    continue;
                u = S.seq[t];
                state_remove_delta(&S, t, &S.scratch);
            }
            int64_t before = state_peak(&S);
            Delta d = S.scratch;
            int n = d.n;
            int lims_fit[6];
            int64_t lims[3] = {before - 1, before, before + 1};
            for (int k = 0; k < 3; k++)
                lims_fit[k] = state_delta_fits(&S, &d, lims[k]);
            /* make it (from the delta, as the annealing does) */
            if (add)
                state_add_with(&S, u, t, &d);
            else
                state_remove_with(&S, t, &d);
            assert_int_equal(d.n, n);
            int64_t after = state_peak(&S);
            for (int k = 0; k < 3; k++) {
                assert_int_equal(lims_fit[k], after <= lims[k]);
                fits += lims_fit[k];
                judged++;
            }
            /* undo, then judge at the new peak's limits from the old state */
            if (add)
                state_remove(&S, t);
            else
                state_add(&S, u, t);
            assert_int_equal(state_peak(&S), before);
            if (add)
                state_add_delta(&S, u, t, &S.scratch);
            else
                state_remove_delta(&S, t, &S.scratch);
            for (int64_t dx = -1; dx <= 1; dx++) {
                int f = state_delta_fits(&S, &S.scratch, after + dx);
                assert_int_equal(f, dx >= 0);
                misses += !f;
                judged++;
            }
            /* keep the mutation half the time, so states drift */
            if (rng_below(&rng, 2)) {
                if (add)
                    state_add(&S, u, t);
                else
                    state_remove(&S, t);
                assert_int_equal(state_peak(&S), after);
            }
        }
        state_done(&S);
        units_done(&U);
        graph_free(g);
    }
    assert_true(judged > 20000);
    assert_true(fits > 1000 && misses > 1000);  /* both answers were tested */
}

static const char *const OPTS[] = {"iters=200000", "time_limit=60", "seed=3", NULL};

static void test_chain32_budgets(void **state TU_UNUSED)
{
    Graph *g = tu_chain_training("f", 0, 32);
    Plan n, p;
    assert_int_equal(tu_solve(g, "noremat", PLAN_NO_BUDGET, &n, NULL), ERR_OK);
    /* generous: the baseline peak itself */
    assert_int_equal(tu_solve(g, "fastsa", n.peak, &p, OPTS), ERR_OK);
    tu_check_plan(g, &p);
    assert_true(p.peak <= n.peak);
    assert_true(p.cost <= n.cost + 2); /* barely any recomputation needed */
    plan_done(&p);
    /* tight: a quarter of the baseline */
    int64_t tight = n.peak / 4;
    assert_int_equal(tu_solve(g, "fastsa", tight, &p, OPTS), ERR_OK);
    tu_check_plan(g, &p);
    assert_true(p.peak <= tight);
    assert_true(p.peak < n.peak);
    assert_true(p.cost > n.cost);
    assert_true(p.recomputations > 0);
    tu_end(g, NULL, &p, &n, NULL);
}

static void test_fig1(void **state TU_UNUSED)
{
    Graph *g = tu_graph("A; B:A; C:B; D:B,C; E:A,D");
    Plan p;
    assert_int_equal(tu_solve(g, "fastsa", 3, &p, OPTS), ERR_OK);
    tu_check_plan(g, &p);
    assert_int_equal(p.peak, 3);
    assert_true(p.cost == 6); /* A B C D A E: one recomputation is optimal */
    plan_done(&p);
    assert_int_equal(tu_solve(g, "fastsa", PLAN_NO_BUDGET, &p, OPTS), ERR_OK);
    tu_check_plan(g, &p);
    assert_true(p.cost == 5);
    tu_end(g, NULL, &p, NULL);
}

static void test_same_seed_same_plan(void **state TU_UNUSED)
{
    unsigned seed = 5;
    Graph *g = random_training(&seed, 14);
    Plan n, a, b, c;
    assert_int_equal(tu_solve(g, "noremat", PLAN_NO_BUDGET, &n, NULL), ERR_OK);
    const char *o1[] = {"iters=20000", "time_limit=60", "seed=9", NULL};
    const char *o2[] = {"iters=20000", "time_limit=60", "seed=10", NULL};
    int64_t budget = n.peak * 2 / 3;
    int r1 = tu_solve(g, "fastsa", budget, &a, o1);
    int r2 = tu_solve(g, "fastsa", budget, &b, o1);
    int r3 = tu_solve(g, "fastsa", budget, &c, o2);
    assert_int_equal(r1, r2);
    assert_true(r1 == ERR_OK || r1 == ERR_OVER_BUDGET);
    assert_true(r3 == ERR_OK || r3 == ERR_OVER_BUDGET);
    assert_int_equal(a.T, b.T);
    assert_memory_equal(a.steps, b.steps, (size_t)a.T * sizeof *a.steps);
    tu_check_plan(g, &a);
    tu_check_plan(g, &c);
    tu_end(g, NULL, &a, &b, &c, &n, NULL);
}

static void test_resolve_warm_start(void **state TU_UNUSED)
{
    Graph *g = tu_chain_training("f", 0, 24);
    Plan n, p, q;
    assert_int_equal(tu_solve(g, "noremat", PLAN_NO_BUDGET, &n, NULL), ERR_OK);
    Solver *s = tu_solver(g, "fastsa", OPTS);
    assert_int_equal(tu_plan(s, n.peak * 3 / 5, NULL, &p), ERR_OK);
    tu_check_plan(g, &p);
    assert_true(p.peak <= n.peak * 3 / 5);
    assert_true(fastsa_last_tried(s) > 0);
    /* a tighter budget from the previous plan: the quick answer, valid,
     * within the budget or not; the full search there fits */
    int rq = tu_plan(s, n.peak / 4, &p, &q);
    assert_true(rq == ERR_OK || rq == ERR_OVER_BUDGET);
    tu_check_plan(g, &q);
    plan_done(&q);
    plan_init(&q);
    assert_int_equal(tu_plan(s, n.peak / 4, NULL, &q), ERR_OK);
    tu_check_plan(g, &q);
    assert_true(q.peak <= n.peak / 4);
    tu_end(g, s, &p, &q, &n, NULL);
}

/* A re-solve is the quick answer: only the warm anneal runs, even where
 * it misses the budget (the explorer's full solve follows it), so the
 * slider stays quick where no plan fits. */
static void test_resolve_is_quick(void **state TU_UNUSED)
{
    Graph *g = tu_load("samples/transformer_small.json");
    int node;
    int64_t lo = graph_min_peak(g, &node);
    /* so few mutations that the lower bound is out of reach */
    const long long iters = 200;
    const char *opts[] = {"iters=200", "time_limit=60", "resolve_time=60", "seed=5", NULL};
    Solver *s = tu_solver(g, "fastsa", opts);
    Plan p, q;
    int64_t b0 = lo;
    int rc0 = tu_plan(s, b0, NULL, &p);
    assert_int_equal(rc0, ERR_OVER_BUDGET);
    tu_check_plan(g, &p);
    long long full = fastsa_last_tried(s);
    assert_true(full > iters + iters / 10);   /* grouping: two stages */
    int64_t b1 = b0 + (p.peak - b0) / 2;  /* higher, still below what it reached */
    if (b1 >= p.peak)
        b1 = p.peak - 1;
    assert_int_equal(tu_plan(s, b1, &p, &q), ERR_OVER_BUDGET);
    tu_check_plan(g, &q);
    /* the warm anneal alone: at most one stage and its tenth */
    assert_true(fastsa_last_tried(s) <= iters + iters / 10 + 1);
    tu_end(g, s, &p, &q, NULL);
}

static void test_random_plans(void **state TU_UNUSED)
{
    unsigned seed = 23;
    int met = 0, total = 0, gmet = 0;
    for (int gi = 0; gi < 12; gi++) {
        Graph *g = random_training(&seed, 4 + (int)(rnd(&seed) % 14));
        Plan n;
        assert_int_equal(tu_solve(g, "noremat", PLAN_NO_BUDGET, &n, NULL), ERR_OK);
        int node;
        int64_t lo = graph_min_peak(g, &node);
        for (int gr = 0; gr < 2; gr++)
            for (int pct = 80; pct >= 40; pct -= 40) {
                int64_t b = n.peak * pct / 100;
                if (b < lo)
                    b = lo;
                const char *o[] = {"iters=20000", "time_limit=60",
                                   gr ? "grouping=on" : "grouping=off",
                                   gr ? "logaddexp=on" : "logaddexp=off", NULL};
                Plan p;
                int rc = tu_solve(g, "fastsa", b, &p, o);
                assert_true(rc == ERR_OK || rc == ERR_OVER_BUDGET);
                tu_check_plan(g, &p);
                assert_true((rc == ERR_OK) == (p.peak <= b));
                assert_true(p.peak <= n.peak);
                met += rc == ERR_OK;
                total++;
                Plan q;
                if (tu_solve(g, "greedy", b, &q, NULL) == ERR_OK)
                    gmet++;
                plan_done(&q);
                plan_done(&p);
            }
        plan_done(&n);
        graph_free(g);
    }
    /* budgets down to the smallest possible peak are often out of reach;
     * the annealer should still meet at least as many as GreedyRemat */
    assert_true(met >= gmet);
    assert_true(met >= total / 4);
}

/* Plan a (status ra) comes from a search that holds every run of the
 * search that made b (same streams, iteration limits), so it is never
 * worse: where b fits, a fits and costs no more; where neither does, a's
 * peak is no higher. 1 when both fit (their costs were compared). */
static int check_never_worse(const Plan *a, int ra, const Plan *b, int rb)
{
    if (rb == ERR_OK) {
        assert_int_equal(ra, ERR_OK);
        assert_true(a->cost <= b->cost);
        return 1;
    }
    if (ra == ERR_OVER_BUDGET)
        assert_true(a->peak <= b->peak);
    return 0;
}

/* tu_solve with fastsa; *deep set when its answer came from a run from a
 * deep-rerun start (its describe says so). */
static int solve_noting_deep(const Graph *g, int64_t b, Plan *out, const char *const *opts, int *deep)
{
    Solver *sv = tu_solver(g, "fastsa", opts);
    int rc = tu_plan(sv, b, NULL, out);
    Overlay o;
    tu_describe(sv, &o);
    *deep |= strstr(o.title, "made again after the peak") != NULL;
    overlay_done(&o);
    solver_free(sv);
    return rc;
}

/* fastsa keeps the best of its starts: never dearer than greedy's plan
 * (one of its seeds) where greedy fits, and grouping never makes it worse
 * than its own run without grouping (that run is part of the grouped
 * search, on the same random stream), except where either answer came
 * from a deep-rerun start, which each search makes from its own best.
 * Iteration limits make every run deterministic. */

static void test_never_worse_than_its_starts(void **state TU_UNUSED)
{
    unsigned seed = 41;
    int greedy_cmp = 0, group_cmp = 0;
    const char *on[] = {"iters=30000", "time_limit=60", "restarts=0", "seed=7", NULL};
    const char *off[] = {"iters=30000", "time_limit=60", "restarts=0", "seed=7", "grouping=off",
                         "seeds=none", NULL};
    for (int gi = 0; gi < 10; gi++) {
        Graph *g = gi < 8 ? random_training(&seed, 5 + gi) : graph_load(gi == 8 ? "samples/chain32.json" : "samples/unet_small.json", &(Err){0});
        assert_non_null(g);
        int64_t bp = tu_baseline_peak(g);
        for (int pct = 80; pct >= 50; pct -= 15) {
            int64_t b = bp * pct / 100;
            if (b < graph_min_peak(g, NULL))
                continue;   /* refused up front, by every solver alike */
            Plan f, u, q;
            int deep = 0;
            int rf = solve_noting_deep(g, b, &f, on, &deep);
            int ru = solve_noting_deep(g, b, &u, off, &deep);
            int rq = tu_solve(g, "greedy", b, &q, NULL);
            assert_true(rf == ERR_OK || rf == ERR_OVER_BUDGET);
            tu_check_plan(g, &f);
            if (rq == ERR_OK) {
                assert_int_equal(rf, ERR_OK);
                assert_true(f.cost <= q.cost);
                greedy_cmp++;
            }
            /* a deep start is made from each search's own best, so from
             * there their runs differ */
            if (!deep)
                group_cmp += check_never_worse(&f, rf, &u, ru);
            plan_done(&f);
            plan_done(&u);
            plan_done(&q);
        }
        graph_free(g);
    }
    assert_true(greedy_cmp >= 5);
    assert_true(group_cmp >= 10);
}

/* The budget descent is one more start: with every other run on its own
 * random stream and iteration limits, a search with it can only end at or
 * below the same search without it, and on some of these graphs it ends
 * strictly below. */
static void test_descent_never_worse(void **state TU_UNUSED)
{
    unsigned seed = 77;
    int cmp = 0, better = 0;
    const char *on[] = {"iters=40000", "time_limit=60", "restarts=0", "seed=3", "seeds=none", NULL};
    const char *off[] = {"iters=40000", "time_limit=60", "restarts=0", "seed=3", "seeds=none",
                         "descent=off", NULL};
    for (int gi = 0; gi < 10; gi++) {
        Graph *g = gi < 7 ? random_training(&seed, 8 + 2 * gi)
                          : tu_load(gi == 7 ? "samples/unet_small.json"
                                    : gi == 8 ? "samples/transformer_small.json"
                                              : "samples/models/resnet18.json");
        int64_t bp = tu_baseline_peak(g);
        for (int pct = 85; pct >= 55; pct -= 15) {
            int64_t b = bp * pct / 100;
            if (b < graph_min_peak(g, NULL))
                continue;
            Plan d, n;
            int rd = tu_solve(g, "fastsa", b, &d, on);
            int rn = tu_solve(g, "fastsa", b, &n, off);
            assert_true(rd == ERR_OK || rd == ERR_OVER_BUDGET);
            tu_check_plan(g, &d);
            if (check_never_worse(&d, rd, &n, rn)) {
                better += d.cost < n.cost;
                cmp++;
            }
            plan_done(&d);
            plan_done(&n);
        }
        graph_free(g);
    }
    assert_true(cmp >= 15);
    assert_true(better >= 1);
}

/* pin= (run once) and force= (run at least twice) are kept; a solver that
 * cannot honour them refuses in one line. */
static void test_pin_force(void **state TU_UNUSED)
{
    Graph *g = tu_graph("A; B:A; C:B; D:B,C; E:A,D");
    Plan p;
    /* at budget 3 the optimum recomputes A; pinned, A runs once */
    const char *pin[] = {"iters=20000", "time_limit=60", "pin=A", NULL};
    int rc = tu_solve(g, "fastsa", 3, &p, pin);
    assert_true(rc == ERR_OK || rc == ERR_OVER_BUDGET);
    int runs = 0;
    for (int t = 0; t < p.T; t++)
        runs += p.steps[t] == graph_find(g, "A");
    assert_int_equal(runs, 1);
    plan_done(&p);
    /* at the baseline peak nothing needs recomputing; forced, B runs twice */
    const char *force[] = {"iters=20000", "time_limit=60", "force=B,C", NULL};
    assert_int_equal(tu_solve(g, "fastsa", 4, &p, force), ERR_OK);
    tu_check_plan(g, &p);
    int rb = 0, rcc = 0;
    for (int t = 0; t < p.T; t++) {
        rb += p.steps[t] == graph_find(g, "B");
        rcc += p.steps[t] == graph_find(g, "C");
    }
    assert_true(rb >= 2 && rcc >= 2);
    plan_done(&p);
    /* the portfolio passes them on */
    const char *apin[] = {"time_limit=1", "pin=A", NULL};
    rc = tu_solve(g, "auto", 3, &p, apin);
    assert_true(rc == ERR_OK || rc == ERR_OVER_BUDGET);
    runs = 0;
    for (int t = 0; t < p.T; t++)
        runs += p.steps[t] == graph_find(g, "A");
    assert_true(runs <= 1);
    plan_done(&p);
    /* refusals and mistakes, each in one line */
    Err e;
    const char *pin_a[] = {"pin=A", NULL}, *pin_z[] = {"pin=Z", NULL};
    const char *both[] = {"pin=A", "force=A", NULL};
    assert_null(tu_solver_new(g, "greedy", pin_a, &e));
    assert_int_equal(e.code, ERR_UNSUPPORTED);
    assert_non_null(strstr(e.msg, "greedy cannot honour pin/force"));
    assert_null(tu_solver_new(g, "fastsa", pin_z, &e));
    assert_non_null(strstr(e.msg, "option pin: no node 'Z' in the graph"));
    assert_null(tu_solver_new(g, "fastsa", both, &e));
    assert_non_null(strstr(e.msg, "node 'A' is both pinned and forced"));
    graph_free(g);
}

/* describe says which run the plan came from and lists the node groups of
 * the grouped run: each of two nodes or more, fused forward nodes
 * (Algorithm 1 never fuses gradients) ending at the group's own node. */
static void test_describe_groups(void **state TU_UNUSED)
{
    Graph *g = tu_chain_training("f", 0, 16);
    const char *opts[] = {"iters=20000", "time_limit=60", "restarts=0", NULL};
    Solver *s = tu_solver(g, "fastsa", opts);
    Plan p;
    int64_t bp = tu_baseline_peak(g);
    assert_int_equal(tu_plan(s, bp / 2, NULL, &p), ERR_OK);
    Overlay ov;
    tu_describe(s, &ov);
    assert_non_null(strstr(ov.title, "fastsa: best of "));
    assert_true(ov.n > 0);
    for (int i = 0; i < ov.n; i++) {
        assert_true(ov.groups[i].n >= 2);
        for (int k = 0; k < ov.groups[i].n - 1; k++)
            assert_int_equal(g->nodes[ov.groups[i].nodes[k]].phase, PHASE_FWD);
        char want[64];
        snprintf(want, sizeof want, "group %s:", g->nodes[ov.groups[i].nodes[ov.groups[i].n - 1]].id);
        assert_non_null(strstr(ov.groups[i].label, want));
    }
    overlay_done(&ov);
    tu_end(g, s, &p, NULL);
}

static void test_cancel(void **state TU_UNUSED)
{
    Graph *g = tu_chain_training("f", 0, 16);
    Solver *s = tu_solver(g, "fastsa", NULL);
    Err e;
    err_clear(&e);
    Progress pr;
    progress_init(&pr);
    atomic_store(&pr.cancel, 1);
    Plan p;
    plan_init(&p);
    assert_int_equal(solver_plan(s, 10, NULL, &p, &pr, &e), ERR_CANCELLED);
    assert_int_equal(p.T, 0);
    tu_end(g, s, &p, NULL);
}

static void count_tick(void *ctx, const Anneal *A, const State *S)
{
    (void)S;
    assert_true(A->best_fits);
    ++*(int *)ctx;
}

/* A run calls its tick about every 0.2 s while its best fits the budget
 * (so a search can offer that best before the run ends), and never while
 * it does not. Time bounds the run, not mutations, so a busy machine only
 * makes fewer mutations between the ticks. */
static void test_anneal_ticks(void **state TU_UNUSED)
{
    unsigned seed = 5;
    for (int fits = 0; fits < 2; fits++) {
        Units U;
        State S;
        Graph *g = random_state(&seed, 1, 2, &U, &S);
        Anneal A;
        anneal_init(&A, &S, fits ? INT64_MAX / 8 : 0, OBJ_ELU, 10, NULL);
        int ticks = 0;
        A.tick = count_tick;
        A.tick_ctx = &ticks;
        Rng rng = {7};
        anneal_run(&A, &S, &rng, 1LL << 50, 1, 1e-4, clock_now() + 0.7, 0, 0, NULL);
        if (fits)
            assert_true(ticks >= 2);
        else
            assert_int_equal(ticks, 0);
        anneal_done(&A);
        state_done(&S);
        units_done(&U);
        graph_free(g);
    }
}

/* What a search offers while it runs: valid plans within the budget, each
 * cheaper than the one before, and the answer no dearer than the last. */
static void test_offers_improve(void **state TU_UNUSED)
{
    Graph *g = tu_chain_training("f", 0, 48);
    int64_t bp = tu_baseline_peak(g), lo = graph_min_peak(g, NULL);
    const char *opts[] = {"time_limit=1", "seed=2", NULL};
    Solver *s = tu_solver(g, "fastsa", opts);
    TuOffers o = {.g = g, .budget = lo + (bp - lo) / 4, .origin = "fastsa"};
    Progress pr;
    tu_listen(&pr, &o);
    Err e;
    err_clear(&e);
    Plan p;
    plan_init(&p);
    assert_int_equal(solver_plan(s, o.budget, NULL, &p, &pr, &e), ERR_OK);
    double c = tu_check_within(g, &p, o.budget);
    assert_true(o.n >= 1 && c <= o.last);
    tu_end(g, s, &p, NULL);
}

/* The chain the two tests below share, a budget a quarter of the way
 * from its smallest peak to its baseline's, and a good plan for it (a
 * second's search), cheaper than what runs of one mutation find. */
static Graph *chain_with_held(int64_t *b, Plan *held)
{
    Graph *g = tu_chain_training("f", 0, 48);
    int64_t bp = tu_baseline_peak(g), lo = graph_min_peak(g, NULL);
    *b = lo + (bp - lo) / 4;
    const char *good[] = {"time_limit=1", "seed=3", NULL};
    assert_int_equal(tu_solve(g, "fastsa", *b, held, good), ERR_OK);
    return g;
}

/* A plan another thread holds in the relay while the search runs (auto's
 * cascade LP) is run from next: with runs of one mutation, the answer is
 * that plan or cheaper; without it, the graph's order repaired, dearer. */
static void test_runs_from_plans_found_beside(void **state TU_UNUSED)
{
    int64_t b;
    Plan held, p;
    plan_init(&p);
    Graph *g = chain_with_held(&b, &held);
    double hc = tu_check_within(g, &held, b);
    const char *idle[] = {"iters=1", "grouping=off", "descent=off", "seeds=none", "restarts=0", NULL};
    Solver *s = tu_solver(g, "fastsa", idle);
    Err e;
    err_clear(&e);
    for (int with = 0; with < 2; with++) {
        Relay r;
        relay_init(&r, g, b, NULL, -1);
        if (with)
            relay_offer_held(&r, held.steps, held.T, "cascade");
        plan_reset(&p);
        assert_int_equal(fastsa_search_from(s, b, NULL, 0, 5, 1, &r, &p, NULL, &e), ERR_OK);
        relay_done(&r);
        double c;
        int64_t pk = tu_check_peak(g, p.steps, p.T, &c);
        if (with)
            assert_true(pk >= 0 && pk <= b && c <= hc);
        else    /* the repair brings the order within it, dearer */
            assert_true(pk > b || c > hc);
    }
    tu_end(g, s, &p, &held, NULL);
}

/* A plan held beside the search that fits but is no cheaper than the
 * search's best (the twin's improvements, behind this search's) is passed
 * over: with runs of one mutation each run tries one, so the mutations
 * tried count the runs; a plan over the budget gets its run. */
static void test_passes_over_plans_behind(void **state TU_UNUSED)
{
    int64_t b;
    Plan held, dear, p;
    plan_init(&p);
    Graph *g = chain_with_held(&b, &held);
    double hc = tu_check_within(g, &held, b);
    assert_int_equal(tu_solve(g, "greedy", b, &dear, NULL), ERR_OK);
    assert_true(tu_check_within(g, &dear, b) > hc);
    Plan over;  /* the graph's order: over the budget */
    assert_int_equal(tu_solve(g, "noremat", PLAN_NO_BUDGET, &over, NULL), ERR_OK);
    const char *idle[] = {"iters=1", "grouping=off", "descent=off", "seeds=none", "restarts=0", NULL};
    Solver *s = tu_solver(g, "fastsa", idle);
    Err e;
    err_clear(&e);
    long long tried[3];
    for (int k = 0; k < 3; k++) {   /* nothing held, a dearer plan, one over the budget */
        Relay r;
        relay_init(&r, g, b, NULL, -1);
        if (k > 0)
            relay_offer_held(&r, k == 1 ? dear.steps : over.steps, k == 1 ? dear.T : over.T, "fastsa");
        plan_reset(&p);
        /* the search starts from `held`, so its best is that plan */
        assert_int_equal(fastsa_search_from(s, b, &held, 1, 5, 1, &r, &p, NULL, &e), ERR_OK);
        relay_done(&r);
        assert_true(tu_check_within(g, &p, b) <= hc);
        tried[k] = fastsa_last_tried(s);
    }
    assert_true(tried[1] == tried[0]);
    assert_true(tried[2] == tried[0] + 1);
    tu_end(g, s, &p, &held, &dear, &over, NULL);
}

/* A seed solver's plan made elsewhere (auto's member) is that seed's
 * start at its budget, instead of the solver run again: given a plan
 * cheaper than greedy's own, the search with runs of one mutation answers
 * it; given for a solver not among the seeds, or another budget, nothing
 * changes. */
static void test_seed_plans_given(void **state TU_UNUSED)
{
    int64_t b;
    Plan held, p;
    plan_init(&p);
    Graph *g = chain_with_held(&b, &held);
    double hc = tu_check_within(g, &held, b), own = -1;
    const char *idle[] = {"iters=1", "grouping=off", "descent=off", "seeds=greedy", "restarts=0", NULL};
    for (int k = 0; k < 4; k++) {
        Solver *s = tu_solver(g, "fastsa", idle);
        if (k == 1)
            fastsa_seed_plan(s, "greedy", b, held.steps, held.T);
        if (k == 2)
            fastsa_seed_plan(s, "echo", b, held.steps, held.T);
        if (k == 3)
            fastsa_seed_plan(s, "greedy", b - 1, held.steps, held.T);
        plan_done(&p);
        assert_int_equal(tu_plan(s, b, NULL, &p), ERR_OK);
        double c = tu_check_within(g, &p, b);
        if (k == 0)
            own = c;    /* greedy's own plan: dearer than the given one */
        if (k == 0 || k == 1)
            assert_true(k == 1 ? c <= hc : c > hc);
        else
            assert_true(c == own);
        solver_free(s);
    }
    tu_end(g, NULL, &p, &held, NULL);
}

static void test_bad_options(void **state TU_UNUSED)
{
    Graph *g = tu_graph("A; B:A");
    Plan p;
    const char *bad1[] = {"iters=-1", NULL};
    const char *bad2[] = {"time_limit=0", NULL};
    const char *bad3[] = {"slack=x", NULL};
    const char *bad4[] = {"grouping=maybe", NULL};
    const char *bad5[] = {"logaddexp=1", NULL};
    assert_int_equal(tu_solve(g, "fastsa", PLAN_NO_BUDGET, &p, bad5), ERR_USAGE);
    assert_int_equal(tu_solve(g, "fastsa", PLAN_NO_BUDGET, &p, bad4), ERR_USAGE);
    assert_int_equal(tu_solve(g, "fastsa", PLAN_NO_BUDGET, &p, bad1), ERR_USAGE);
    assert_int_equal(tu_solve(g, "fastsa", PLAN_NO_BUDGET, &p, bad2), ERR_USAGE);
    assert_int_equal(tu_solve(g, "fastsa", PLAN_NO_BUDGET, &p, bad3), ERR_USAGE);
    graph_free(g);
}

TU_MAIN(TU_TEST(test_segtree_vs_array)
        TU_TEST(test_segtreef_vs_array)
        TU_TEST(test_delta_judges_as_made)
        TU_TEST(test_move_delta)
        TU_TEST(test_incremental_peak_matches_sim)
        TU_TEST(test_chain32_budgets)
        TU_TEST(test_never_worse_than_its_starts)
        TU_TEST(test_descent_never_worse)
        TU_TEST(test_pin_force)
        TU_TEST(test_describe_groups)
        TU_TEST(test_fig1)
        TU_TEST(test_same_seed_same_plan)
        TU_TEST(test_resolve_warm_start)
        TU_TEST(test_resolve_is_quick)
        TU_TEST(test_random_plans)
        TU_TEST(test_cancel)
        TU_TEST(test_anneal_ticks)
        TU_TEST(test_offers_improve)
        TU_TEST(test_runs_from_plans_found_beside)
        TU_TEST(test_passes_over_plans_behind)
        TU_TEST(test_seed_plans_given)
        TU_TEST(test_bad_options))
