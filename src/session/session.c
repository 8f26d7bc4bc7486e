/* session.c — want/have bookkeeping around the job worker, the baseline
 * figures the views share, per-class options and node rules, the answer
 * cache, and the per-plan figures computed once at install. */
#include "src/session/session.h"

#include <stdlib.h>
#include <string.h>

#include "src/base/clock.h"
#include "src/base/xalloc.h"

/* graphs a still-running worker may read after session_free; kept
 * reachable so leak checkers do not count them */
static Graph *abandoned_graphs[4];

const SolverClass *session_default_solver(void)
{
    const SolverClass *a = solver_find("auto");
    return a ? a : solver_at(0);
}

int64_t session_cache_key(const SolverClass *cls, int64_t budget)
{
    return cls->caps & SOLVER_BUDGETLESS ? PLAN_NO_BUDGET : budget;
}

/* ---- options ----------------------------------------------------------- */

static SolverOpts *class_opts(Session *s, const SolverClass *cls)
{
    for (int i = 0; i < s->n_copts; i++)
        if (s->copts[i].cls == cls)
            return &s->copts[i].opts;
    s->copts = xreallocarray(s->copts, (size_t)s->n_copts + 1, sizeof *s->copts);
    SessionOpts *o = &s->copts[s->n_copts++];
    o->cls = cls;
    solver_opts_init(&o->opts);
    return &o->opts;
}

const SolverOpts *session_class_opts(Session *s, const SolverClass *cls)
{
    return class_opts(s, cls);
}

static void opts_add_kv(SolverOpts *o, const char *k, const char *v)
{
    size_t kl = strlen(k), vl = strlen(v);
    char *kv = xmalloc(kl + vl + 2);
    memcpy(kv, k, kl);
    kv[kl] = '=';
    memcpy(kv + kl + 1, v, vl + 1);
    Err e;
    solver_opts_add(o, kv, &e);
    free(kv);
}

int session_set_option(Session *s, const SolverClass *cls, const char *key, const char *val, Err *e)
{
    const SolverParam *p = cls->params;
    while (p && p->name && strcmp(p->name, key))
        p++;
    if (!p || !p->name)
        return err_set(e, ERR_USAGE, "%s has no option '%s'", cls->name, key);
    SolverOpts *o = class_opts(s, cls);
    SolverOpts n;
    solver_opts_init(&n);
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->key[i], key))
            opts_add_kv(&n, o->key[i], o->val[i]);
    if (val && val[0]) {
        if (strchr(val, '=') || strlen(val) > 256) {
            solver_opts_done(&n);
            return err_set(e, ERR_USAGE, "option %s: '%s' is not a value", key, val);
        }
        opts_add_kv(&n, key, val);
    }
    solver_opts_done(o);
    *o = n;
    if (cls == s->cls)
        s->gen++;
    return ERR_OK;
}

void session_set_rules(Session *s, const char *pin, const char *force)
{
    pin = pin ? pin : "";
    force = force ? force : "";
    if (!strcmp(pin, s->pin) && !strcmp(force, s->force))
        return;
    free(s->pin);
    free(s->force);
    s->pin = xstrdup(pin);
    s->force = xstrdup(force);
    s->gen++;
}

void session_effective_opts(Session *s, const SolverClass *cls, SolverOpts *out)
{
    solver_opts_init(out);
    const SolverOpts *o = class_opts(s, cls);
    for (int i = 0; i < o->n; i++)
        opts_add_kv(out, o->key[i], o->val[i]);
    if (s->pin[0])
        opts_add_kv(out, "pin", s->pin);
    if (s->force[0])
        opts_add_kv(out, "force", s->force);
}

/* ---- per-plan figures ---------------------------------------------------- */

static const Graph *facts_g;
static const int *facts_runs;

static int by_extra(const void *a, const void *b)
{
    int u = *(const int *)a, v = *(const int *)b;
    double eu = (facts_runs[u] - 1) * facts_g->nodes[u].cost;
    double ev = (facts_runs[v] - 1) * facts_g->nodes[v].cost;
    return eu < ev ? 1 : eu > ev ? -1 : u - v;
}

static void facts_done(PlanFacts *f)
{
    free(f->runs);
    free(f->first_step);
    free(f->rerun);
    free(f->recomputed);
    free(f->alive_peak);
    memset(f, 0, sizeof *f);
}

static void facts_compute(PlanFacts *f, const Graph *g, const Plan *p, const Sim *sim)
{
    facts_done(f);
    f->runs = xcalloc((size_t)g->n + 1, sizeof *f->runs);
    f->first_step = xmallocarray((size_t)g->n + 1, sizeof *f->first_step);
    f->rerun = xcalloc((size_t)p->T + 1, 1);
    for (int v = 0; v < g->n; v++)
        f->first_step[v] = -1;
    for (int t = 0; t < p->T; t++) {
        int v = p->steps[t];
        if (f->runs[v]++) {
            f->rerun[t] = 1;
            f->n_rerun_steps++;
            f->extra_cost += g->nodes[v].cost;
        } else {
            f->first_step[v] = t;
        }
    }
    f->recomputed = xmallocarray((size_t)g->n + 1, sizeof *f->recomputed);
    for (int v = 0; v < g->n; v++)
        if (f->runs[v] > 1)
            f->recomputed[f->n_recomputed++] = v;
    facts_g = g;    /* qsort has no context argument; UI thread only */
    facts_runs = f->runs;
    qsort(f->recomputed, (size_t)f->n_recomputed, sizeof *f->recomputed, by_extra);
    f->alive_peak = xcalloc((size_t)g->n + 1, 1);
    LiveValue *lv;
    int n = sim->peak_step >= 0 ? sim_live_at(g, p->steps, sim, sim->peak_step, &lv) : -1;
    for (int i = 0; i < n; i++)
        if (lv[i].reason != LIVE_WORKSPACE)
            f->alive_peak[lv[i].node] = 1;
    if (n >= 0)
        free(lv);
}

/* ---- lifetime -------------------------------------------------------------- */

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
    s->cls = cls ? cls : session_default_solver();
    s->pin = xstrdup("");
    s->force = xstrdup("");
    SolverOpts *o = class_opts(s, s->cls);
    for (int i = 0; opts && i < opts->n; i++)
        opts_add_kv(o, opts->key[i], opts->val[i]);
    s->cache = xcalloc(SESSION_CACHE_MAX, sizeof *s->cache);
    int T;
    s->min_peak = graph_min_peak(g, NULL);
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
    s->gen = 1;
    err_clear(&s->err);
    return s;
}

static void entry_done(SessionEntry *en)
{
    plan_done(&en->plan);
    sim_done(&en->sim);
    overlay_done(&en->ov);
    free(en->opts_key);
    memset(en, 0, sizeof *en);
}

void session_free(Session *s)
{
    if (!s)
        return;
    int joined = job_free(s->job, 0.5);
    for (int i = 0; i < s->n_cache; i++)
        entry_done(&s->cache[i]);
    free(s->cache);
    for (int i = 0; i < s->n_fits; i++) {
        fit_result_done(&s->fits[i].fit);
        free(s->fits[i].opts_key);
    }
    plan_done(&s->plan);
    overlay_done(&s->ov);
    sim_done(&s->sim);
    sim_done(&s->base);
    facts_done(&s->facts);
    free(s->base_order);
    for (int i = 0; i < s->n_copts; i++)
        solver_opts_done(&s->copts[i].opts);
    free(s->copts);
    free(s->pin);
    free(s->force);
    if (joined) {
        graph_free(s->g);
    } else {
        for (size_t i = 0; i < sizeof abandoned_graphs / sizeof *abandoned_graphs; i++)
            if (!abandoned_graphs[i]) {
                abandoned_graphs[i] = s->g;
                break;
            }
    }
    free(s);
}

/* ---- want ----------------------------------------------------------------- */

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

/* ---- the cache -------------------------------------------------------------- */

static SessionEntry *cache_find(Session *s, const SolverClass *cls, const char *key, int64_t budget)
{
    int64_t b = session_cache_key(cls, budget);
    for (int i = 0; i < s->n_cache; i++)
        if (s->cache[i].cls == cls && s->cache[i].budget == b && !strcmp(s->cache[i].opts_key, key))
            return &s->cache[i];
    return NULL;
}

static void sim_copy(Sim *dst, const Sim *src)
{
    *dst = *src;
    dst->mem = xmallocarray((size_t)src->T + 1, sizeof *dst->mem);
    dst->held_until = xmallocarray((size_t)src->T + 1, sizeof *dst->held_until);
    memcpy(dst->mem, src->mem, (size_t)src->T * sizeof *dst->mem);
    memcpy(dst->held_until, src->held_until, (size_t)src->T * sizeof *dst->held_until);
}

/* Make en's answer the one shown; a failed answer keeps the last plan. */
static void install(Session *s, const SessionEntry *en, int from_cache)
{
    s->rc = en->rc;
    s->err = en->err;
    s->secs = en->secs;
    s->from_cache = from_cache;
    if (!en->has_plan)
        return;
    sim_done(&s->sim);
    sim_copy(&s->sim, &en->sim);
    plan_copy(&s->plan, &en->plan);
    s->plan.budget = s->budget;
    overlay_done(&s->ov);
    overlay_copy(&s->ov, &en->ov);
    facts_compute(&s->facts, s->g, &s->plan, &s->sim);
    s->have = 1;
    s->have_cls = en->cls;
    s->have_budget = s->budget;
}

/* A free entry for the key (the old one of the same key, or the least
 * recently used when full); its old contents are released. */
static SessionEntry *cache_slot(Session *s, const SolverClass *cls, const char *key, int64_t budget)
{
    SessionEntry *en = cache_find(s, cls, key, budget);
    if (!en && s->n_cache < SESSION_CACHE_MAX)
        en = &s->cache[s->n_cache++];
    if (!en) {
        en = &s->cache[0];
        for (int i = 1; i < s->n_cache; i++)
            if (s->cache[i].stamp < en->stamp)
                en = &s->cache[i];
    }
    entry_done(en);
    en->cls = cls;
    en->budget = session_cache_key(cls, budget);
    en->opts_key = xstrdup(key);
    plan_init(&en->plan);
    overlay_init(&en->ov);
    en->stamp = ++s->stamp;
    return en;
}

static char *effective_key(Session *s, const SolverClass *cls)
{
    SolverOpts o;
    session_effective_opts(s, cls, &o);
    char *k = job_opts_key(&o);
    solver_opts_done(&o);
    return k;
}

void session_cache_put(Session *s, const SolverClass *cls, int64_t budget, int rc, const Err *err,
                       const Plan *plan, double secs)
{
    char *key = effective_key(s, cls);
    SessionEntry *en = cache_slot(s, cls, key, budget);
    free(key);
    en->rc = rc;
    if (err)
        en->err = *err;
    else
        err_clear(&en->err);
    if (plan && plan->T > 0) {
        Err e;
        err_clear(&e);
        plan_copy(&en->plan, plan);
        en->has_plan = sim_run(s->g, plan->steps, plan->T, &en->sim, &e) == ERR_OK;
    }
    en->secs = secs;
}

int session_cached(Session *s, const SolverClass *cls, int64_t budget)
{
    char *key = effective_key(s, cls);
    int hit = cache_find(s, cls, key, budget) != NULL;
    free(key);
    return hit;
}

const SessionEntry *session_find(Session *s, const SolverClass *cls, const SolverOpts *opts,
                                 int64_t budget)
{
    char *key = job_opts_key(opts);
    const SessionEntry *en = cache_find(s, cls, key, budget);
    free(key);
    return en;
}

static SessionFit *fit_find(Session *s, const SolverClass *cls, const char *key, int64_t memory)
{
    for (int i = 0; i < s->n_fits; i++)
        if (s->fits[i].cls == cls && s->fits[i].memory == memory && !strcmp(s->fits[i].opts_key, key))
            return &s->fits[i];
    return NULL;
}

const SessionFit *session_fit_find(Session *s, const SolverClass *cls, const SolverOpts *opts,
                                   int64_t memory)
{
    char *key = job_opts_key(opts);
    const SessionFit *f = fit_find(s, cls, key, memory);
    free(key);
    return f;
}

/* ---- the worker ---------------------------------------------------------------- */

int session_request(Session *s)
{
    s->asked_gen = s->gen;
    s->asked_at = clock_now();
    SolverOpts o;
    session_effective_opts(s, s->cls, &o);
    char *key = job_opts_key(&o);
    SessionEntry *en = cache_find(s, s->cls, key, s->budget);
    free(key);
    if (en) {
        solver_opts_done(&o);
        job_drop(s->job);   /* an older want still solving is not wanted now */
        en->stamp = ++s->stamp;
        install(s, en, 1);
        return 1;
    }
    JobTask t = {.kind = JOB_PLAN, .cls = s->cls, .opts = &o, .budget = s->budget};
    job_request(s->job, &t, s->gen);
    solver_opts_done(&o);
    return 0;
}

int session_fd(const Session *s)
{
    return job_fd(s->job);
}

/* Move a plan answer into the cache; returns its entry. */
static SessionEntry *store(Session *s, JobResult *r)
{
    SessionEntry *en = cache_slot(s, r->cls, r->opts_key, r->budget);
    en->rc = r->rc;
    en->err = r->err;
    en->plan = r->plan;
    en->sim = r->sim;
    en->ov = r->ov;
    en->has_plan = r->has_plan;
    en->secs = r->secs;
    plan_init(&r->plan);
    memset(&r->sim, 0, sizeof r->sim);
    overlay_init(&r->ov);
    return en;
}

static void store_fit(Session *s, JobResult *r)
{
    SessionFit *f = fit_find(s, r->cls, r->opts_key, r->budget);
    if (!f && s->n_fits < SESSION_FITS_MAX)
        f = &s->fits[s->n_fits++];
    if (!f) {
        f = &s->fits[0];
        for (int i = 1; i < s->n_fits; i++)
            if (s->fits[i].stamp < f->stamp)
                f = &s->fits[i];
    }
    if (f->opts_key) {
        fit_result_done(&f->fit);
        free(f->opts_key);
    }
    f->cls = r->cls;
    f->opts_key = xstrdup(r->opts_key);
    f->memory = r->budget;
    f->rc = r->rc;
    f->err = r->err;
    f->fit = r->fit;
    fit_result_init(&r->fit);
    f->secs = r->secs;
    f->stamp = ++s->stamp;
}

int session_poll(Session *s)
{
    int what = 0;
    JobResult r;
    while (job_take(s->job, &r)) {
        if (r.kind == JOB_FIT) {
            if (r.rc != ERR_CANCELLED) {
                store_fit(s, &r);
                what |= SESSION_MORE;
            }
        } else if (r.background) {
            if (r.rc != ERR_CANCELLED) {
                store(s, &r);
                what |= SESSION_MORE;
            }
        } else if (r.gen == s->asked_gen && r.rc != ERR_CANCELLED) {
            install(s, store(s, &r), 0);
            what |= SESSION_HAVE;
        }
        job_result_done(&r);
    }
    return what;
}

int session_busy(const Session *s, double *elapsed, double *progress)
{
    int busy = job_busy(s->job, progress);
    if (elapsed)
        *elapsed = busy ? clock_now() - s->asked_at : 0;
    return busy;
}

void session_status(const Session *s, JobStatus *st)
{
    job_status(s->job, st);
}

void session_background(Session *s, const JobTask *tasks, int n)
{
    JobTask *keep = xmallocarray((size_t)(n > 0 ? n : 1), sizeof *keep);
    int m = 0;
    for (int i = 0; i < n; i++) {
        int done = tasks[i].kind == JOB_FIT ? session_fit_find(s, tasks[i].cls, tasks[i].opts, tasks[i].budget) != NULL
                                            : session_find(s, tasks[i].cls, tasks[i].opts, tasks[i].budget) != NULL;
        if (!done)
            keep[m++] = tasks[i];
    }
    job_background(s->job, keep, m);
    free(keep);
}
