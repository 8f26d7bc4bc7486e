/* test_session.c — the session and its worker: answers arrive through the
 * pipe, a newer request cancels and supersedes the running one, results are
 * for the newest budget, solver refusals are reported, the cache serves
 * repeated wants without the worker. */
#include <poll.h>
#include <stdatomic.h>
#include <time.h>

#include "testutil.h"

#include "src/session/session.h"

/* A solver that runs the baseline order but first spins until released or
 * cancelled, so the test controls when it finishes. */
static atomic_int hold, cancels, starts;

static int slow_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    (void)budget;
    atomic_fetch_add(&starts, 1);
    struct timespec ts = {0, 1000000};
    for (int i = 0; i < 5000 && atomic_load(&hold); i++) {
        if (progress_cancelled(p)) {
            atomic_fetch_add(&cancels, 1);
            return err_set(e, ERR_CANCELLED, "cancelled");
        }
        nanosleep(&ts, NULL);
    }
    int T;
    int *o = sim_baseline_order(s->g, &T);
    for (int t = 0; t < T; t++)
        plan_push(out, o[t]);
    free(o);
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

/* Wait up to 5 s for the worker's answer; returns session_poll's value. */
static int wait_answer(Session *s)
{
    for (int i = 0; i < 50; i++) {
        struct pollfd pf = {.fd = session_fd(s), .events = POLLIN};
        if (poll(&pf, 1, 100) > 0 && session_poll(s))
            return 1;
    }
    return 0;
}

/* A session of slow_cls on a 4-node graph whose smallest peak is below its
 * baseline peak, with the counters reset and hold set as given. */
static Session *slow_session(int held)
{
    Session *s = tu_session(tu_graph("A=4; B=4:A; C=4:B; D=1:A,C"), &slow_cls);
    atomic_store(&hold, held);
    atomic_store(&cancels, 0);
    atomic_store(&starts, 0);
    return s;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
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
    assert_true(wait_answer(s));
    assert_true(s->have);
    assert_int_equal(s->rc, ERR_OK);
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
    Session *s = slow_session(1);
    int64_t b1 = s->base_peak, b2 = s->min_peak + (s->base_peak - s->min_peak) / 2;
    assert_true(b2 < b1 || b1 == s->min_peak);
    session_request(s);
    for (int i = 0; i < 500 && atomic_load(&starts) == 0; i++)
        sleep_ms(1);
    assert_int_equal(atomic_load(&starts), 1);
    session_set_budget(s, b2);
    assert_true(session_stale(s));
    session_request(s);
    /* the first run can only end through cancel while hold is set */
    for (int i = 0; i < 2000 && atomic_load(&starts) < 2; i++)
        sleep_ms(1);
    assert_int_equal(atomic_load(&starts), 2);
    assert_int_equal(atomic_load(&cancels), 1);
    atomic_store(&hold, 0);
    assert_true(wait_answer(s));
    assert_int_equal(atomic_load(&cancels), 1);
    assert_int_equal(s->have_budget, b2);
    assert_int_equal(s->plan.budget, b2);
    assert_true(s->have);
    double el;
    for (int i = 0; i < 100 && session_busy(s, &el, NULL); i++)
        sleep_ms(1);
    assert_false(session_busy(s, &el, NULL));
    /* the cancelled answer for b1 never shows up */
    struct pollfd pf = {.fd = session_fd(s), .events = POLLIN};
    assert_int_equal(poll(&pf, 1, 50), 0);
    assert_false(session_poll(s));
    session_free(s);
}

static void refusal_keeps_last_plan(void **st TU_UNUSED)
{
    Session *s = tu_session(chain(), solver_find("noremat"));
    session_request(s);
    assert_true(wait_answer(s));
    int64_t peak = s->plan.peak;
    session_set_solver(s, &picky_cls);
    session_request(s);
    assert_true(wait_answer(s));
    assert_int_equal(s->rc, ERR_UNSUPPORTED);
    assert_string_equal(s->err.msg, "picky: needs a graph with a rainbow");
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
    assert_true(wait_answer(s));
    assert_false(s->from_cache);
    /* noremat ignores the budget: one cache entry serves every budget */
    session_set_budget(s, s->min_peak);
    assert_int_equal(session_request(s), 1);
    assert_true(s->from_cache);
    assert_int_equal(s->have_budget, s->min_peak);
    assert_int_equal(s->n_cache, 1);
    session_free(s);
}

static void cache_is_per_budget_for_budgeted_solvers(void **st TU_UNUSED)
{
    Session *s = slow_session(0);
    int64_t b1 = s->base_peak, b2 = s->min_peak;
    assert_true(b2 < b1);
    assert_int_equal(session_request(s), 0);
    assert_true(wait_answer(s));
    session_set_budget(s, b2);
    assert_int_equal(session_request(s), 0);    /* a new budget goes to the worker */
    assert_true(wait_answer(s));
    assert_int_equal(s->have_budget, b2);
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

/* Poll answers until (cls, budget) is in the cache or 5 s pass. */
static int wait_cached(Session *s, const SolverClass *cls, int64_t budget)
{
    SolverOpts none;
    solver_opts_init(&none);
    for (int i = 0; i < 500; i++) {
        if (session_find(s, cls, &none, budget))
            return 1;
        tu_session_pump(s, 10);
    }
    return 0;
}

/* Background work waits for the foreground: a foreground request cancels
 * the running background task, is answered first, and the cancelled task
 * runs again after it; every answer lands in the cache. */
static void foreground_preempts_background(void **st TU_UNUSED)
{
    Session *s = slow_session(1);
    int64_t b1 = s->base_peak, b2 = s->min_peak, b3 = (s->base_peak + s->min_peak) / 2;
    assert_true(b2 < b3 && b3 < b1);
    SolverOpts none;
    solver_opts_init(&none);
    JobTask tk[2] = {{JOB_PLAN, &slow_cls, &none, b1}, {JOB_PLAN, &slow_cls, &none, b2}};
    session_background(s, tk, 2);
    for (int i = 0; i < 500 && atomic_load(&starts) == 0; i++)
        sleep_ms(1);
    assert_int_equal(atomic_load(&starts), 1);
    JobStatus js;
    session_status(s, &js);
    assert_true(js.running && js.running_bg);
    assert_int_equal(js.bg_left, 2);
    assert_int_equal(js.budget, b1);
    session_set_budget(s, b3);
    assert_int_equal(session_request(s), 0);
    for (int i = 0; i < 2000 && atomic_load(&starts) < 2; i++)
        sleep_ms(1);
    assert_int_equal(atomic_load(&cancels), 1);     /* the background task gave way */
    assert_true(session_busy(s, NULL, NULL));
    atomic_store(&hold, 0);
    assert_true(wait_answer(s));
    assert_int_equal(s->have_budget, b3);
    assert_true(wait_cached(s, &slow_cls, b1));
    assert_true(wait_cached(s, &slow_cls, b2));
    assert_int_equal(atomic_load(&starts), 4);      /* b1 twice (cancelled once), b3, b2 */
    assert_int_equal(atomic_load(&cancels), 1);
    session_free(s);
}

/* Replacing the queue cancels a running task it no longer lists, and its
 * answer never reaches the cache. */
static void replaced_background_is_cancelled(void **st TU_UNUSED)
{
    Session *s = slow_session(1);
    int64_t b1 = s->base_peak, b2 = s->min_peak;
    SolverOpts none;
    solver_opts_init(&none);
    JobTask t1 = {JOB_PLAN, &slow_cls, &none, b1}, t2 = {JOB_PLAN, &slow_cls, &none, b2};
    session_background(s, &t1, 1);
    for (int i = 0; i < 500 && atomic_load(&starts) == 0; i++)
        sleep_ms(1);
    session_background(s, &t2, 1);
    for (int i = 0; i < 2000 && atomic_load(&cancels) == 0; i++)
        sleep_ms(1);
    assert_int_equal(atomic_load(&cancels), 1);
    atomic_store(&hold, 0);
    assert_true(wait_cached(s, &slow_cls, b2));
    assert_null(session_find(s, &slow_cls, &none, b1));
    /* queueing what is already answered queues nothing */
    session_background(s, &t2, 1);
    JobStatus js;
    session_status(s, &js);
    assert_int_equal(js.bg_left, 0);
    session_free(s);
}

TU_MAIN(TU_TEST(request_then_plan_arrives)
        TU_TEST(newer_request_cancels_older)
        TU_TEST(refusal_keeps_last_plan)
        TU_TEST(cache_serves_repeats_and_budget_clamps)
        TU_TEST(cache_is_per_budget_for_budgeted_solvers)
        TU_TEST(foreground_preempts_background)
        TU_TEST(replaced_background_is_cancelled))
