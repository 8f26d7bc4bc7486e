/* session.c — want/have bookkeeping around the job worker, the baseline
 * figures the views share, and the (solver, budget) plan cache. */
#include "src/session.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/xalloc.h"

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int64_t session_cache_key(const SolverClass *cls, int64_t budget)
{
    return cls->caps & SOLVER_BUDGETLESS ? PLAN_NO_BUDGET : budget;
}

Session *session_new(Graph *g, const SolverClass *cls, const SolverOpts *opts, Err *e)
{
    Session *s = xcalloc(1, sizeof *s);
    s->g = g;
    s->job = job_new(g, e);
    if (!s->job) {
        graph_free(g);
        free(s);
        return NULL;
    }
    s->cls = cls ? cls : solver_at(0);
    s->opts_cls = s->cls;
    solver_opts_init(&s->opts);
    if (opts)
        for (int i = 0; i < opts->n; i++) {
            size_t n = strlen(opts->key[i]) + strlen(opts->val[i]) + 2;
            char *kv = xmalloc(n);
            size_t kl = strlen(opts->key[i]);
            memcpy(kv, opts->key[i], kl);
            kv[kl] = '=';
            memcpy(kv + kl + 1, opts->val[i], n - kl - 1);
            solver_opts_add(&s->opts, kv, NULL);
            free(kv);
        }
    int at, T;
    s->min_peak = graph_min_peak(g, &at);
    s->base_order = sim_baseline_order(g, &T);
    Err se;
    err_clear(&se);
    sim_run(g, s->base_order, T, &s->base, &se);
    s->base_peak = s->base.peak;
    if (s->base_peak < s->min_peak)
        s->base_peak = s->min_peak;
    s->budget = s->base_peak;
    plan_init(&s->plan);
    overlay_init(&s->ov);
    memset(&s->sim, 0, sizeof s->sim);
    s->gen = 1;
    err_clear(&s->err);
    return s;
}

static void entry_done(SessionEntry *en)
{
    plan_done(&en->plan);
    overlay_done(&en->ov);
}

void session_free(Session *s)
{
    if (!s)
        return;
    job_free(s->job);
    for (int i = 0; i < s->n_cache; i++)
        entry_done(&s->cache[i]);
    plan_done(&s->plan);
    overlay_done(&s->ov);
    sim_done(&s->sim);
    sim_done(&s->base);
    free(s->base_order);
    solver_opts_done(&s->opts);
    graph_free(s->g);
    free(s);
}

void session_set_budget(Session *s, int64_t budget)
{
    if (budget < s->min_peak)
        budget = s->min_peak;
    if (budget > s->base_peak)
        budget = s->base_peak;
    if (budget != s->budget) {
        s->budget = budget;
        s->gen++;
    }
}

void session_set_solver(Session *s, const SolverClass *cls)
{
    if (cls && cls != s->cls) {
        s->cls = cls;
        s->gen++;
    }
}

int session_stale(const Session *s)
{
    return s->asked_gen != s->gen;
}

static SessionEntry *cache_find(Session *s, const SolverClass *cls, int64_t key)
{
    for (int i = 0; i < s->n_cache; i++)
        if (s->cache[i].cls == cls && s->cache[i].budget == key)
            return &s->cache[i];
    return NULL;
}

static int has_plan(int rc, const Plan *p)
{
    return (rc == ERR_OK || rc == ERR_OVER_BUDGET) && p->T > 0;
}

/* Make en's answer the one shown; a failed answer keeps the last plan. */
static void install(Session *s, const SessionEntry *en, int from_cache)
{
    s->rc = en->rc;
    s->err = en->err;
    s->secs = en->secs;
    s->from_cache = from_cache;
    if (!has_plan(en->rc, &en->plan))
        return;
    Sim sim;
    Err e;
    err_clear(&e);
    if (sim_run(s->g, en->plan.steps, en->plan.T, &sim, &e))
        return;     /* solver_plan already validated it; cannot happen */
    sim_done(&s->sim);
    s->sim = sim;
    plan_copy(&s->plan, &en->plan);
    s->plan.budget = s->budget;
    overlay_done(&s->ov);
    overlay_init(&s->ov);
    for (int i = 0; i < en->ov.n; i++) {
        const OverlayGroup *gr = &en->ov.groups[i];
        int k = overlay_add(&s->ov, gr->kind, gr->label, gr->parent, gr->level);
        for (int j = 0; j < gr->n; j++)
            overlay_add_node(&s->ov, k, gr->nodes[j]);
    }
    overlay_set_title(&s->ov, en->ov.title);
    s->ov.width = en->ov.width;
    s->have = 1;
    s->have_cls = en->cls;
    s->have_budget = s->budget;
}

/* A free entry for key (the old one of the same key, or the least
 * recently used when full); its old contents are released. */
static SessionEntry *cache_slot(Session *s, const SolverClass *cls, int64_t key)
{
    SessionEntry *en = cache_find(s, cls, key);
    if (en) {
        entry_done(en);
        return en;
    }
    if (s->n_cache < SESSION_CACHE_MAX)
        return &s->cache[s->n_cache++];
    en = &s->cache[0];
    for (int i = 1; i < s->n_cache; i++)
        if (s->cache[i].stamp < en->stamp)
            en = &s->cache[i];
    entry_done(en);
    return en;
}

void session_cache_put(Session *s, const SolverClass *cls, int64_t budget, int rc, const Err *err,
                       const Plan *plan, double secs)
{
    SessionEntry *en = cache_slot(s, cls, session_cache_key(cls, budget));
    en->cls = cls;
    en->budget = session_cache_key(cls, budget);
    en->rc = rc;
    if (err)
        en->err = *err;
    else
        err_clear(&en->err);
    plan_init(&en->plan);
    if (plan)
        plan_copy(&en->plan, plan);
    overlay_init(&en->ov);
    en->secs = secs;
    en->stamp = ++s->stamp;
}

int session_cached(Session *s, const SolverClass *cls, int64_t budget)
{
    return cache_find(s, cls, session_cache_key(cls, budget)) != NULL;
}

int session_request(Session *s)
{
    s->asked_gen = s->gen;
    s->asked_at = mono_s();
    SessionEntry *en = cache_find(s, s->cls, session_cache_key(s->cls, s->budget));
    if (en) {
        en->stamp = ++s->stamp;
        install(s, en, 1);
        return 1;
    }
    job_request(s->job, s->cls, s->cls == s->opts_cls ? &s->opts : NULL, s->budget, s->gen);
    return 0;
}

int session_fd(const Session *s)
{
    return job_fd(s->job);
}

int session_poll(Session *s)
{
    JobResult r;
    if (!job_take(s->job, &r))
        return 0;
    if (r.gen != s->asked_gen) {
        plan_done(&r.plan);
        overlay_done(&r.ov);
        return 0;
    }
    SessionEntry *en = cache_slot(s, r.cls, session_cache_key(r.cls, r.budget));
    en->cls = r.cls;
    en->budget = session_cache_key(r.cls, r.budget);
    en->rc = r.rc;
    en->err = r.err;
    en->plan = r.plan;
    en->ov = r.ov;
    en->secs = r.secs;
    en->stamp = ++s->stamp;
    install(s, en, 0);
    return 1;
}

int session_busy(const Session *s, double *elapsed, double *progress)
{
    int busy = job_busy(s->job, progress);
    if (elapsed)
        *elapsed = busy ? mono_s() - s->asked_at : 0;
    return busy;
}
