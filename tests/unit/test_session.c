/* test_session.c — the session and its worker: answers arrive through the
 * wake-up descriptor, a newer request cancels and supersedes the running
 * one, results are for the newest budget, refusals are reported, the
 * cache serves repeated wants without the worker, background answers give
 * way to the want; and the anytime answer: quick, then each better plan
 * of the full solve, then the final one, which is the command line's, and
 * a budget change during refining cancels it.
 *
 * Waits are bounded by HANG_MS, a limit that only catches a hang (the
 * tests hold their solvers with flags, never with time). */
#include <poll.h>
#include <stdatomic.h>
#include <time.h>

#include "testutil.h"

#include "src/plan/bound.h"
#include "src/session/service.h"
#include "src/session/session.h"
#include "tests/bench/gen.h"

#define HANG_MS 60000

/* A solver that runs the baseline order but first spins until released or
 * cancelled, so the test controls when it finishes. */
static atomic_int hold, cancels, starts;

static void sleep_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Spin while hold is set; 1 when cancelled meanwhile. */
static int held(Progress *p)
{
    while (atomic_load(&hold)) {
        if (progress_cancelled(p)) {
            atomic_fetch_add(&cancels, 1);
            return 1;
        }
        sleep_ms(1);
    }
    return 0;
}

static void push_baseline(const Graph *g, Plan *out, int extra_a)
{
    int T;
    int *o = sim_baseline_order(g, &T);
    for (int k = 0; k < extra_a; k++)
        plan_push(out, o[0]);   /* the first node again: a dearer valid plan */
    for (int t = 0; t < T; t++)
        plan_push(out, o[t]);
    free(o);
}

static int slow_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    (void)budget;
    atomic_fetch_add(&starts, 1);
    if (held(p))
        return err_set(e, ERR_CANCELLED, "cancelled");
    push_baseline(s->g, out, 0);
    return ERR_OK;
}

static const SolverParam no_params[] = {OPT_P_END};
static const SolverClass slow_cls = {
    .name = "slow", .title = "test", .params = no_params, .solve = slow_solve,
};

static int picky_prepare(Solver *s, Err *e)
{
    (void)s;
    return err_set(e, ERR_UNSUPPORTED, "picky: needs a graph with a rainbow");
}
static const SolverClass picky_cls = {
    .name = "picky", .title = "test", .params = no_params, .prepare = picky_prepare,
    .solve = slow_solve,
};

/* The lower bound step_solve tells after its offer (0: none). */
static _Atomic double told;

/* An anytime solver: its re-solve answers at once with a dear plan (the
 * baseline with the first node run twice more); its solve offers a plan
 * one run cheaper, tells `told`, waits until released, then returns the
 * baseline. */
static int step_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    (void)budget;
    atomic_fetch_add(&starts, 1);
    Plan mid;
    plan_init(&mid);
    push_baseline(s->g, &mid, 1);
    progress_offer(p, mid.steps, mid.T, "step");
    plan_done(&mid);
    progress_bound(p, atomic_load(&told));
    if (held(p))
        return err_set(e, ERR_CANCELLED, "cancelled");
    push_baseline(s->g, out, 0);
    return ERR_OK;
}

static int step_resolve(Solver *s, int64_t budget, const Plan *prev, Plan *out, Progress *p, Err *e)
{
    (void)budget, (void)prev, (void)p, (void)e;
    push_baseline(s->g, out, 2);
    return ERR_OK;
}

static const SolverClass step_cls = {
    .name = "step", .title = "test", .params = no_params, .solve = step_solve, .resolve = step_resolve,
};

/* step's solve alone: every answer is a full solve, which tells `told`. */
static const SolverClass bounded_cls = {
    .name = "bounded", .title = "test", .params = no_params, .solve = step_solve,
};

/* Take the worker's news until cond holds; 0 when HANG_MS pass first. */
#define WAIT_FOR(s, cond)                                                                              \
    ({                                                                                                 \
        int ok_ = 0;                                                                                   \
        for (int i_ = 0; i_ < HANG_MS / 5 && !(ok_ = (cond)); i_++)                                    \
            tu_session_pump(s, 5);                                                                     \
        ok_;                                                                                           \
    })

/* Wait for a counter without taking news. */
static int wait_count(atomic_int *c, int n)
{
    for (int i = 0; i < HANG_MS && atomic_load(c) < n; i++)
        sleep_ms(1);
    return atomic_load(c) >= n;
}

static int idle(Session *s)
{
    SessionStatus st;
    session_status(s, &st);
    return !st.solving && !st.bg_left;
}

/* A session of cls on a 4-node graph whose smallest peak is below its
 * baseline peak, with the counters reset and hold set as given. */
static Session *held_session(const SolverClass *cls, int h)
{
    Session *s = tu_session(tu_graph("A=4; B=4:A; C=4:B; D=1:A,C"), cls);
    atomic_store(&hold, h);
    atomic_store(&cancels, 0);
    atomic_store(&starts, 0);
    return s;
}

static Graph *chain(void)
{
    /* sizes 1,2,3,4 in a chain: baseline peak 7 (C and D), min peak 7 */
    return tu_graph("A=1; B=2:A; C=3:B; D=4:C; E=1:A,D");
}

static void request_then_plan_arrives(void **st TU_UNUSED)
{
    Session *s = tu_session(chain(), solver_find("noremat"));
    assert_false(s->have);
    assert_true(session_stale(s));
    assert_int_equal(session_request(s), 0);
    assert_false(session_stale(s));
    assert_true(WAIT_FOR(s, s->have));
    assert_int_equal(s->rc, ERR_OK);
    assert_int_equal(s->shown, SHOWN_FINAL);    /* noremat's first answer is the command line's */
    assert_int_equal(s->plan.T, 5);
    int64_t want = tu_check_peak(s->g, s->plan.steps, s->plan.T, NULL);
    assert_int_equal(s->plan.peak, want);
    assert_int_equal(s->sim.peak, want);
    assert_int_equal(s->sim.T, 5);
    assert_int_equal(s->base_peak, s->base.peak);
    assert_true(s->min_peak <= s->base_peak);
    session_free(s);
}

static void newer_request_cancels_older(void **st TU_UNUSED)
{
    Session *s = held_session(&slow_cls, 1);
    int64_t b1 = s->base_peak, b2 = s->min_peak;
    assert_true(b2 < b1);
    session_request(s);
    assert_true(wait_count(&starts, 1));
    session_set_budget(s, b2);
    assert_true(session_stale(s));
    session_request(s);
    /* the first run can only end through cancel while hold is set */
    assert_true(wait_count(&starts, 2));
    assert_int_equal(atomic_load(&cancels), 1);
    atomic_store(&hold, 0);
    assert_true(WAIT_FOR(s, s->have));
    assert_int_equal(atomic_load(&cancels), 1);
    assert_int_equal(s->have_budget, b2);
    assert_int_equal(s->plan.budget, b2);
    assert_true(WAIT_FOR(s, idle(s)));
    /* the cancelled answer for b1 never shows up, nor is it kept */
    assert_null(session_answer(s, &slow_cls, b1));
    assert_int_equal(s->have_budget, b2);
    session_free(s);
}

static void refusal_keeps_last_plan(void **st TU_UNUSED)
{
    Session *s = tu_session(chain(), solver_find("noremat"));
    session_request(s);
    assert_true(WAIT_FOR(s, s->have));
    int64_t peak = s->plan.peak;
    session_set_solver(s, &picky_cls);
    session_request(s);
    assert_true(WAIT_FOR(s, s->rc != ERR_OK));
    assert_int_equal(s->rc, ERR_UNSUPPORTED);
    assert_string_equal(s->err.msg, "picky: needs a graph with a rainbow");
    assert_string_equal(session_refusal(s, &picky_cls), "picky: needs a graph with a rainbow");
    assert_true(s->have);
    assert_int_equal(s->plan.peak, peak);
    assert_string_equal(s->plan.solver, "noremat");
    session_free(s);
}

static void cache_serves_repeats_and_budget_clamps(void **st TU_UNUSED)
{
    Session *s = tu_session(chain(), solver_find("noremat"));
    session_set_budget(s, 1);
    assert_int_equal(s->budget, s->min_peak);
    session_set_budget(s, INT64_MAX);
    assert_int_equal(s->budget, s->base_peak);
    session_request(s);
    assert_true(WAIT_FOR(s, s->have));
    assert_false(s->from_cache);
    /* noremat ignores the budget: one cache entry serves every budget */
    session_set_budget(s, s->min_peak);
    assert_int_equal(session_request(s), 1);
    assert_true(s->from_cache);
    assert_int_equal(s->shown, SHOWN_FINAL);
    assert_int_equal(s->n_cache, 1);
    session_free(s);
}

static void cache_is_per_budget_for_budgeted_solvers(void **st TU_UNUSED)
{
    Session *s = held_session(&slow_cls, 0);
    int64_t b1 = s->base_peak, b2 = s->min_peak;
    assert_true(b2 < b1);
    assert_int_equal(session_request(s), 0);
    assert_true(WAIT_FOR(s, s->have));
    session_set_budget(s, b2);
    assert_int_equal(session_request(s), 0);    /* a new budget goes to the worker */
    assert_true(WAIT_FOR(s, s->have_budget == b2));
    assert_int_equal(s->rc, ERR_OVER_BUDGET);   /* the baseline order peaks above b2 */
    assert_true(s->have);
    assert_true(s->sim.peak > b2);
    session_set_budget(s, b1);
    assert_int_equal(session_request(s), 1);    /* back to b1: from the cache */
    assert_int_equal(s->rc, ERR_OK);
    assert_int_equal(s->have_budget, b1);
    assert_int_equal(atomic_load(&starts), 2);
    assert_int_equal(s->n_cache, 2);
    session_free(s);
}

/* Background work waits for the want: a want cancels the running
 * background answer, is answered first, and the cancelled one runs again
 * after it; every answer lands in the cache. */
static void want_preempts_background(void **st TU_UNUSED)
{
    Session *s = held_session(&slow_cls, 1);
    int64_t b1 = s->base_peak, b2 = s->min_peak, b3 = (s->base_peak + s->min_peak) / 2;
    assert_true(b2 < b3 && b3 < b1);
    SessionWant w[2] = {{WANT_PLAN, &slow_cls, b1}, {WANT_PLAN, &slow_cls, b2}};
    session_background(s, w, 2);
    assert_true(wait_count(&starts, 1));
    SessionStatus ss;
    session_status(s, &ss);
    assert_int_equal(ss.bg_left, 2);
    assert_true(session_computing(s, &w[0]));
    assert_false(session_computing(s, &w[1]));
    session_set_budget(s, b3);
    assert_int_equal(session_request(s), 0);
    assert_true(wait_count(&starts, 2));
    assert_int_equal(atomic_load(&cancels), 1);     /* the background answer gave way */
    session_status(s, &ss);
    assert_true(ss.solving);
    atomic_store(&hold, 0);
    assert_true(WAIT_FOR(s, s->have_budget == b3));
    assert_true(WAIT_FOR(s, session_answer(s, &slow_cls, b1) && session_answer(s, &slow_cls, b2)));
    assert_int_equal(atomic_load(&starts), 4);      /* b1 twice (cancelled once), b3, b2 */
    assert_int_equal(atomic_load(&cancels), 1);
    session_free(s);
}

/* Asking for another list cancels a running answer it no longer lists,
 * which never reaches the cache. */
static void replaced_background_is_cancelled(void **st TU_UNUSED)
{
    Session *s = held_session(&slow_cls, 1);
    int64_t b1 = s->base_peak, b2 = s->min_peak;
    SessionWant t1 = {WANT_PLAN, &slow_cls, b1}, t2 = {WANT_PLAN, &slow_cls, b2};
    session_background(s, &t1, 1);
    assert_true(wait_count(&starts, 1));
    session_background(s, &t2, 1);
    assert_true(wait_count(&cancels, 1));
    atomic_store(&hold, 0);
    assert_true(WAIT_FOR(s, session_answer(s, &slow_cls, b2) != NULL));
    assert_true(WAIT_FOR(s, idle(s)));
    assert_null(session_answer(s, &slow_cls, b1));
    /* asking for what is answered already sends nothing */
    session_background(s, &t2, 1);
    SessionStatus ss;
    session_status(s, &ss);
    assert_int_equal(ss.bg_left, 0);
    session_free(s);
}

/* The cost of the first node's runs beyond one in the shown plan. */
static int extra_runs(const Session *s)
{
    return s->plan.T - s->base.T;
}

/* Quick, better, final: a budget the cache lacks shows the quick answer,
 * then the full solve's better plan, then its final plan, which is kept
 * and is what a fresh solve (the command line) gives. */
static void anytime_quick_better_final(void **st TU_UNUSED)
{
    Session *s = held_session(&step_cls, 0);
    int64_t b1 = s->min_peak, b2 = s->base_peak;
    session_set_budget(s, b1);
    session_request(s);
    /* the first answer of a solver nothing warms yet is a full solve */
    assert_true(WAIT_FOR(s, s->shown == SHOWN_FINAL && s->have_budget == b1));
    atomic_store(&hold, 1);
    session_set_budget(s, b2);
    assert_int_equal(session_request(s), 0);
    assert_true(WAIT_FOR(s, s->have_budget == b2));
    /* quick first, or already the better plan when the offer came fast */
    assert_true(s->shown == SHOWN_QUICK || s->shown == SHOWN_PARTIAL);
    assert_true(WAIT_FOR(s, s->shown == SHOWN_PARTIAL));
    assert_int_equal(extra_runs(s), 1);
    SessionStatus ss;
    session_status(s, &ss);
    assert_true(ss.solving);
    assert_null(session_answer(s, &step_cls, b2));  /* nothing final yet */
    atomic_store(&hold, 0);
    assert_true(WAIT_FOR(s, s->shown == SHOWN_FINAL));
    assert_int_equal(extra_runs(s), 0);
    assert_int_equal(s->have_budget, b2);
    const Answer *a = session_answer(s, &step_cls, b2);
    assert_non_null(a);
    /* the command line's answer: a fresh solver, solved once */
    Answer cl;
    Graph *g = graph_clone(s->g);
    assert_int_equal(service_solve(g, &step_cls, NULL, b2, NULL, &cl), ERR_OK);
    assert_int_equal(cl.plan.T, s->plan.T);
    assert_memory_equal(cl.plan.steps, s->plan.steps, (size_t)cl.plan.T * sizeof *cl.plan.steps);
    answer_done(&cl);
    graph_free(g);
    session_free(s);
}

/* A budget change while the full solve refines cancels it: its plan is
 * neither shown nor kept, and the new want is answered. */
static void budget_change_cancels_refining(void **st TU_UNUSED)
{
    Session *s = held_session(&step_cls, 0);
    int64_t b1 = s->min_peak, b2 = s->base_peak, b3 = (s->min_peak + s->base_peak) / 2;
    session_set_budget(s, b1);
    session_request(s);
    assert_true(WAIT_FOR(s, s->shown == SHOWN_FINAL));
    atomic_store(&hold, 1);
    session_set_budget(s, b2);
    session_request(s);
    assert_true(WAIT_FOR(s, s->have_budget == b2 && s->shown == SHOWN_PARTIAL));
    int before = atomic_load(&starts);
    session_set_budget(s, b1);
    assert_int_equal(session_request(s), 1);        /* b1 is final already: shown at once */
    assert_true(wait_count(&cancels, 1));           /* and b2's refinement stopped */
    assert_int_equal(s->have_budget, b1);
    assert_int_equal(s->shown, SHOWN_FINAL);
    session_set_budget(s, b3);
    session_request(s);
    assert_true(WAIT_FOR(s, s->have_budget == b3));
    atomic_store(&hold, 0);
    assert_true(WAIT_FOR(s, s->shown == SHOWN_FINAL && s->have_budget == b3));
    assert_null(session_answer(s, &step_cls, b2));  /* the cancelled one was not kept */
    assert_true(atomic_load(&starts) > before);
    session_free(s);
}

/* A bound the search tells while it refines goes with the plan shown
 * (the status line's gap), as the final answer's would: never on a plan
 * cheaper than it, and the final answer carries what its solver says,
 * nothing more. */
static void bound_shown_while_refining(void **st TU_UNUSED)
{
    Session *s = held_session(&bounded_cls, 1);
    double base = s->base.cost;
    atomic_store(&told, base);
    session_set_budget(s, s->base_peak);
    session_request(s);
    assert_true(WAIT_FOR(s, s->shown == SHOWN_PARTIAL && s->plan.bound > 0));
    assert_int_equal(extra_runs(s), 1);
    assert_true(s->plan.bound == base);
    assert_true(s->plan.cost > base);
    assert_false(s->plan.optimal);
    atomic_store(&hold, 0);
    assert_true(WAIT_FOR(s, s->shown == SHOWN_FINAL));
    assert_int_equal(extra_runs(s), 0);
    assert_true(s->plan.bound < 0);
    session_free(s);

    /* a bound above the plan shown: that plan left the bound's model */
    s = held_session(&bounded_cls, 1);
    atomic_store(&told, s->base.cost + 10);
    session_set_budget(s, s->base_peak);
    session_request(s);
    assert_true(WAIT_FOR(s, s->shown == SHOWN_PARTIAL));
    for (int i = 0; i < 20; i++)
        tu_session_pump(s, 5);      /* the bound comes after the plan */
    assert_true(s->plan.bound < 0);
    atomic_store(&hold, 0);
    assert_true(WAIT_FOR(s, s->shown == SHOWN_FINAL));
    session_free(s);
    atomic_store(&told, 0);
}

/* The tightest budget: the want starts at the peak bound, the answer is
 * the one `remat solve --budget min` gives (service_tightest: chen, which
 * cannot reach the bound here, at its lowest peak), the budget moves to
 * it, and a later budget ends the mode. */
static void tightest_moves_budget_to_what_is_reached(void **st TU_UNUSED)
{
    Graph *g = gen_training("chain", 12, 1);
    const SolverClass *cls = solver_find("chen");
    Answer cli;
    int64_t lo;
    Service *en = service_new(g);
    assert_int_equal(service_tightest(en, cls, NULL, NULL, &cli, &lo), ERR_OK);
    service_free(en);
    assert_true(cli.budget > lo);       /* the second solve ran */
    assert_int_equal(cli.plan.peak, cli.budget);
    Session *s = tu_session(g, cls);
    session_set_tightest(s);
    assert_true(s->tightest);
    assert_int_equal(s->budget, lo > s->min_peak ? lo : s->min_peak);
    session_request(s);
    assert_true(WAIT_FOR(s, s->have && s->shown == SHOWN_FINAL && !s->tightest));
    assert_int_equal(s->budget, cli.budget);
    assert_int_equal(s->have_budget, cli.budget);
    assert_int_equal(s->rc, ERR_OK);
    assert_true(s->plan.cost == cli.plan.cost);
    assert_int_equal(tu_check_peak(s->g, s->plan.steps, s->plan.T, NULL), cli.budget);
    session_set_tightest(s);
    session_set_budget(s, s->base_peak);
    assert_false(s->tightest);
    answer_done(&cli);
    session_free(s);
}

TU_MAIN(TU_TEST(request_then_plan_arrives)
        TU_TEST(newer_request_cancels_older)
        TU_TEST(refusal_keeps_last_plan)
        TU_TEST(cache_serves_repeats_and_budget_clamps)
        TU_TEST(cache_is_per_budget_for_budgeted_solvers)
        TU_TEST(want_preempts_background)
        TU_TEST(replaced_background_is_cancelled)
        TU_TEST(anytime_quick_better_final)
        TU_TEST(budget_change_cancels_refining)
        TU_TEST(bound_shown_while_refining)
        TU_TEST(tightest_moves_budget_to_what_is_reached))
