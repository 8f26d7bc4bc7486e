/* session.c — want/have bookkeeping around the worker: the anytime
 * answer for the want (quick, better, final), the final answers kept per
 * (solver, options, budget), the background answers the views ask for,
 * per-class options and node rules, and the per-plan figures computed once
 * when a plan is shown. */
#include "src/session/session.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/clock.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"
#include "src/plan/bound.h"

const SolverClass *session_default_solver(void)
{
    const SolverClass *a = solver_find("auto");
    return a ? a : solver_at(0);
}

/* The budget a class's answers are kept under. */
static int64_t cache_budget(const SolverClass *cls, int64_t budget)
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

/* ---- the answers kept ------------------------------------------------------- */

static char *effective_key(Session *s, const SolverClass *cls)
{
    SolverOpts o;
    session_effective_opts(s, cls, &o);
    char *k = service_opts_key(&o);
    solver_opts_done(&o);
    return k;
}

static SessionEntry *cache_find(Session *s, const SolverClass *cls, const char *key, int64_t budget)
{
    int64_t b = cache_budget(cls, budget);
    for (int i = 0; i < s->n_cache; i++) {
        const Answer *a = &s->cache[i].a;
        if (a->cls == cls && cache_budget(cls, a->budget) == b && !strcmp(a->opts_key, key))
            return &s->cache[i];
    }
    return NULL;
}

/* Keep a copy of the final answer a (replacing the same key's, else the
 * least recently used when full). */
static SessionEntry *cache_store(Session *s, const Answer *a)
{
    SessionEntry *en = cache_find(s, a->cls, a->opts_key, a->budget);
    if (!en && s->n_cache < SESSION_CACHE_MAX) {
        en = &s->cache[s->n_cache++];
        answer_init(&en->a);
    }
    if (!en) {
        en = &s->cache[0];
        for (int i = 1; i < s->n_cache; i++)
            if (s->cache[i].stamp < en->stamp)
                en = &s->cache[i];
    }
    answer_copy(&en->a, a);
    en->a.final = 1;
    en->stamp = ++s->stamp;
    return en;
}

const Answer *session_answer(Session *s, const SolverClass *cls, int64_t budget)
{
    char *key = effective_key(s, cls);
    SessionEntry *en = cache_find(s, cls, key, budget);
    free(key);
    return en ? &en->a : NULL;
}

const char *session_refusal(Session *s, const SolverClass *cls)
{
    char *key = effective_key(s, cls);
    const char *why = NULL;
    for (int i = 0; i < s->n_cache && !why; i++) {
        const Answer *a = &s->cache[i].a;
        if (a->cls == cls && !strcmp(a->opts_key, key) && a->rc != ERR_OK && a->rc != ERR_OVER_BUDGET &&
            a->rc != ERR_CANCELLED)
            why = a->err.msg;
    }
    free(key);
    return why;
}

int session_cached(Session *s, const SolverClass *cls, int64_t budget)
{
    return session_answer(s, cls, budget) != NULL;
}

void session_cache_put(Session *s, const SolverClass *cls, int64_t budget, int rc, const Err *err,
                       const Plan *plan, double secs)
{
    Answer a;
    answer_init(&a);
    a.cls = cls;
    a.budget = budget;
    a.opts_key = effective_key(s, cls);
    a.rc = rc;
    if (err)
        a.err = *err;
    a.final = 1;
    a.secs = secs;
    if (plan && plan->T > 0) {
        Err e;
        err_clear(&e);
        plan_copy(&a.plan, plan);
        a.has_plan = sim_run(s->g, plan->steps, plan->T, &a.sim, &e) == ERR_OK;
    }
    cache_store(s, &a);
    answer_done(&a);
}

static SessionFit *fit_find(Session *s, const SolverClass *cls, const char *key, int64_t memory)
{
    for (int i = 0; i < s->n_fits; i++)
        if (s->fits[i].cls == cls && s->fits[i].memory == memory && !strcmp(s->fits[i].opts_key, key))
            return &s->fits[i];
    return NULL;
}

const SessionFit *session_fit(Session *s, const SolverClass *cls, int64_t memory)
{
    char *key = effective_key(s, cls);
    const SessionFit *f = fit_find(s, cls, key, memory);
    free(key);
    return f;
}

static void store_fit(Session *s, const SolverClass *cls, const char *key, int64_t memory, int rc,
                      const Err *err, FitResult *fit, double secs)
{
    SessionFit *f = fit_find(s, cls, key, memory);
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
    f->cls = cls;
    f->opts_key = xstrdup(key);
    f->memory = memory;
    f->rc = rc;
    f->err = *err;
    f->fit = *fit;
    fit_result_init(fit);
    f->secs = secs;
    f->stamp = ++s->stamp;
}

int session_bound(Session *s, int64_t budget, int *rc, double *lb, int *every, Err *e)
{
    return bound_cover_known(s->g, budget, 0, rc, lb, every, e);
}

/* ---- showing an answer ------------------------------------------------------ */

static void sim_copy(Sim *dst, const Sim *src)
{
    sim_done(dst);
    *dst = *src;
    dst->mem = xmallocarray((size_t)src->T + 1, sizeof *dst->mem);
    dst->held_until = xmallocarray((size_t)src->T + 1, sizeof *dst->held_until);
    memcpy(dst->mem, src->mem, (size_t)src->T * sizeof *dst->mem);
    memcpy(dst->held_until, src->held_until, (size_t)src->T * sizeof *dst->held_until);
}

/* Show a (an answer for the want) as `kind`; an answer without a plan
 * (a refusal) keeps the plan shown and says why through rc and err. */
static void install(Session *s, const Answer *a, SessionShown kind, int from_cache)
{
    s->rc = a->rc;
    s->err = a->err;
    if (kind == SHOWN_FINAL) {
        s->secs = a->secs;
        s->from_cache = from_cache;
    }
    if (!a->has_plan)
        return;
    sim_copy(&s->sim, &a->sim);
    plan_copy(&s->plan, &a->plan);
    s->plan.budget = a->budget;
    overlay_done(&s->ov);
    overlay_copy(&s->ov, &a->ov);
    facts_compute(&s->facts, s->g, &s->plan, &s->sim);
    s->have = 1;
    s->have_cls = a->cls;
    s->have_budget = a->budget;
    s->shown = kind;
}

/* ---- the want: quick, better, final (a task of the worker's solve lane) ----- */

typedef struct WantTask {
    Session *s;                 /* owner side only (done) */
    const SolverClass *cls;
    SolverOpts opts;
    char *key;
    int64_t budget;
    int tightest;               /* service_tightest: budget is where it starts */
    unsigned gen;
    int64_t base_peak;          /* the baseline's figures, for the plans offered */
    double base_cost;
    /* the worker's side */
    TaskCtx *cx;
    double best;                /* cost of the cheapest plan posted */
    Answer result;              /* the last answer: final unless cancelled */
    /* the mailbox: the newest plan to show, taken by session_poll, and
     * the best lower bound the search told at this budget (-1: none) */
    pthread_mutex_t mu;
    Answer box;
    int box_full;
    SessionShown box_kind;
    double bound;
} WantTask;

static void want_post(WantTask *t, Answer *a, SessionShown kind)
{
    pthread_mutex_lock(&t->mu);
    answer_move(&t->box, a);
    t->box_full = 1;
    t->box_kind = kind;
    pthread_mutex_unlock(&t->mu);
    worker_wake(t->cx);
}

/* A search's better plan (Progress.offer), on the worker's thread or one
 * its solve started (one call at a time): simulated here, posted when it
 * fits and beats what was posted. */
static void want_offer(void *ctx, const int *steps, int T, const char *origin)
{
    WantTask *t = ctx;
    const Graph *g = t->cx->g;
    Answer a;
    answer_init(&a);
    plan_set_names(&a.plan, g->name, t->cls->name);
    a.plan.budget = t->budget;
    for (int i = 0; i < T; i++)
        plan_push(&a.plan, steps[i]);
    if (origin && strcmp(origin, t->cls->name))
        plan_set_origin(&a.plan, origin);
    Err e;
    err_clear(&e);
    if (plan_evaluate_with(&a.plan, g, t->base_peak, t->base_cost, &a.sim, &e) == ERR_OK &&
        (t->budget == PLAN_NO_BUDGET || a.plan.peak <= t->budget) && a.plan.cost < t->best) {
        a.cls = t->cls;
        a.budget = t->budget;
        a.opts_key = xstrdup(t->key);
        a.has_plan = 1;
        t->best = a.plan.cost;
        want_post(t, &a, SHOWN_PARTIAL);
    }
    answer_done(&a);
}

/* A search's lower bound (Progress.on_bound), on whichever thread proved
 * it: into the mailbox, for the plans shown while the solve refines. */
static void want_bound(void *ctx, double bound)
{
    WantTask *t = ctx;
    pthread_mutex_lock(&t->mu);
    if (bound > t->bound)
        t->bound = bound;
    pthread_mutex_unlock(&t->mu);
    worker_wake(t->cx);
}

static void want_run(void *arg, TaskCtx *cx)
{
    WantTask *t = arg;
    t->cx = cx;
    t->best = INFINITY;
    answer_done(&t->result);
    cx->p->offer = want_offer;
    /* the tightest budget's solves are at budgets of their own */
    cx->p->on_bound = t->tightest ? NULL : want_bound;
    cx->p->offer_ctx = t;
    if (t->tightest) {
        int64_t lo;
        service_tightest(cx->service, t->cls, &t->opts, cx->p, &t->result, &lo);
        return;
    }
    Answer q;
    service_answer(cx->service, t->cls, &t->opts, t->budget, 1, cx->p, &q);
    if (q.rc == ERR_CANCELLED || q.final) {
        answer_move(&t->result, &q);
        return;
    }
    /* the quick answer now; then the command line's, and every cheaper
     * plan on the way */
    double c = answer_cost(&q);
    if (c < t->best || !isfinite(t->best)) {
        t->best = fmin(t->best, c);
        want_post(t, &q, SHOWN_QUICK);
    }
    answer_done(&q);
    service_answer(cx->service, t->cls, &t->opts, t->budget, 0, cx->p, &t->result);
}

static void want_free(void *arg)
{
    WantTask *t = arg;
    solver_opts_done(&t->opts);
    free(t->key);
    answer_done(&t->result);
    answer_done(&t->box);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

static void want_done(void *arg, int cancelled)
{
    WantTask *t = arg;
    Session *s = t->s;
    if (s->fg == t) {
        s->fg = NULL;
        s->fg_id = 0;
    }
    /* a search stopped half-way is no final answer, even if it returned
     * a plan: only what ran to its end is kept */
    if (cancelled || !t->result.final || t->result.rc == ERR_CANCELLED)
        return;
    /* the tightest budget found becomes the want's (the slider moves) */
    if (t->tightest && t->result.has_plan && t->gen == s->asked_gen) {
        s->budget = t->result.budget;
        s->tightest = 0;
    }
    cache_store(s, &t->result);
    if (t->gen == s->asked_gen) {
        install(s, &t->result, SHOWN_FINAL, 0);
        s->changed |= SESSION_HAVE;
    } else {
        s->changed |= SESSION_MORE;
    }
}

static const TaskOps want_ops = {"solve", want_run, want_done, want_free};

/* The news of the want running: its mailbox's plan, shown now. */
static void want_take(Session *s)
{
    WantTask *t = s->fg;
    if (!t)
        return;
    Answer a;
    answer_init(&a);
    SessionShown kind = SHOWN_NONE;
    pthread_mutex_lock(&t->mu);
    if (t->box_full) {
        answer_move(&a, &t->box);
        kind = t->box_kind;
        t->box_full = 0;
    }
    double bound = t->bound;
    pthread_mutex_unlock(&t->mu);
    if (kind != SHOWN_NONE && t->gen == s->asked_gen) {
        install(s, &a, kind, 0);
        s->changed |= SESSION_HAVE;
    }
    answer_done(&a);
    /* the plan shown while this want refines gets the bound its search
     * told, as the final answer would: at its budget, and not for a plan
     * cheaper than it (one in another order than the bound's) */
    if (bound > 0 && t->gen == s->asked_gen && s->have &&
        (s->shown == SHOWN_QUICK || s->shown == SHOWN_PARTIAL) && s->have_budget == t->budget &&
        s->have_cls == t->cls && s->plan.cost >= bound * (1 - 1e-9) && s->plan.bound != bound) {
        s->plan.bound = bound;
        s->changed |= SESSION_HAVE;
    }
}

/* ---- background answers (the solve lane, behind the want) -------------------- */

typedef struct BgTask {
    Session *s;
    WantKind kind;
    const SolverClass *cls;
    SolverOpts opts;
    char *key;
    int64_t budget;
    TaskId id;
    int dropped;                /* cancelled: no longer wanted */
    /* results */
    Answer a;                   /* WANT_PLAN */
    FitResult fit;              /* WANT_FIT */
    int rc;
    Err err;
    double secs;
} BgTask;

static void bg_run(void *arg, TaskCtx *cx)
{
    BgTask *b = arg;
    double t0 = clock_now();
    err_clear(&b->err);
    if (b->kind == WANT_PLAN) {
        answer_done(&b->a);
        b->rc = service_answer(cx->service, b->cls, &b->opts, b->budget, 0, cx->p, &b->a);
    } else if (b->kind == WANT_FIT) {
        fit_result_done(&b->fit);
        b->rc = fit_batch_units(cx->g, b->cls, &b->opts, b->budget, -1, fit_unit(cx->g), 64, &b->fit, cx->p,
                                &b->err);
    } else {
        double lb;
        b->rc = bound_cover(cx->g, NULL, 0, b->budget, BOUND_SECONDS, cx->p, &lb, &b->err);
    }
    b->secs = clock_now() - t0;
}

static void bg_free(void *arg)
{
    BgTask *b = arg;
    solver_opts_done(&b->opts);
    free(b->key);
    answer_done(&b->a);
    fit_result_done(&b->fit);
    free(b);
}

static int want_matches(Session *s, const WantTask *t)
{
    return t && t->gen == s->asked_gen;
}

static void bg_done(void *arg, int cancelled)
{
    BgTask *b = arg;
    Session *s = b->s;
    for (int i = 0; i < s->n_bg; i++)
        if (s->bg[i] == b) {
            s->bg[i] = s->bg[--s->n_bg];
            break;
        }
    if (cancelled || b->rc == ERR_CANCELLED)
        return;
    s->changed |= SESSION_MORE;
    if (b->kind == WANT_FIT) {
        store_fit(s, b->cls, b->key, b->budget, b->rc, &b->err, &b->fit, b->secs);
    } else if (b->kind == WANT_PLAN && b->a.final) {
        cache_store(s, &b->a);
        /* the want's own final answer, found by a compare row first */
        if (want_matches(s, s->fg) && s->fg->cls == b->cls && s->fg->budget == b->budget &&
            !strcmp(s->fg->key, b->key)) {
            install(s, &b->a, SHOWN_FINAL, 0);
            worker_cancel(s->w, s->fg_id);
            s->fg = NULL;
            s->fg_id = 0;
            s->changed |= SESSION_HAVE;
        }
    }
}

static const TaskOps bg_ops = {"background", bg_run, bg_done, bg_free};

/* ---- lifetime -------------------------------------------------------------- */

Session *session_new(Graph *g, const SolverClass *cls, const SolverOpts *opts, Err *e)
{
    Worker *w = worker_new(g, e);
    if (!w)
        return NULL;
    Session *s = xcalloc(1, sizeof *s);
    s->w = w;
    s->g = worker_graph(w);
    s->cls = cls ? cls : session_default_solver();
    s->pin = xstrdup("");
    s->force = xstrdup("");
    SolverOpts *o = class_opts(s, s->cls);
    for (int i = 0; opts && i < opts->n; i++)
        opts_add_kv(o, opts->key[i], opts->val[i]);
    s->cache = xcalloc(SESSION_CACHE_MAX, sizeof *s->cache);
    int T;
    s->min_peak = graph_min_peak(s->g, NULL);
    int *order = sim_baseline_order(s->g, &T);
    Err se;
    err_clear(&se);
    sim_run(s->g, order, T, &s->base, &se);
    free(order);
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

int session_free(Session *s)
{
    if (!s)
        return 1;
    /* the worker frees every task never taken (their free functions touch
     * nothing of the session) and the graph */
    int stopped = worker_free(s->w, 0.5);
    for (int i = 0; i < s->n_cache; i++)
        answer_done(&s->cache[i].a);
    free(s->cache);
    for (int i = 0; i < s->n_fits; i++) {
        fit_result_done(&s->fits[i].fit);
        free(s->fits[i].opts_key);
    }
    free(s->bg);
    plan_done(&s->plan);
    overlay_done(&s->ov);
    sim_done(&s->sim);
    sim_done(&s->base);
    facts_done(&s->facts);
    for (int i = 0; i < s->n_copts; i++)
        solver_opts_done(&s->copts[i].opts);
    free(s->copts);
    free(s->pin);
    free(s->force);
    free(s);
    return stopped;
}

/* ---- want ----------------------------------------------------------------- */

void session_set_budget(Session *s, int64_t budget)
{
    if (budget < s->min_peak)
        budget = s->min_peak;
    if (budget > s->base_peak)
        budget = s->base_peak;
    if (budget != s->budget || s->tightest) {
        s->budget = budget;
        s->tightest = 0;
        s->gen++;
    }
}

void session_set_tightest(Session *s)
{
    if (!s->peak_bound)
        s->peak_bound = bound_min_peak(s->g, NULL);
    session_set_budget(s, s->peak_bound);
    s->tightest = 1;
    s->gen++;
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

int session_request(Session *s)
{
    s->asked_gen = s->gen;
    s->since = clock_now();
    if (s->fg) {
        worker_cancel(s->w, s->fg_id);  /* an older want still solving is not wanted now */
        s->fg = NULL;
        s->fg_id = 0;
    }
    char *key = effective_key(s, s->cls);
    SessionEntry *en = s->tightest ? NULL : cache_find(s, s->cls, key, s->budget);
    if (en) {
        free(key);
        en->stamp = ++s->stamp;
        install(s, &en->a, SHOWN_FINAL, 1);
        return 1;
    }
    WantTask *t = xcalloc(1, sizeof *t);
    t->s = s;
    t->cls = s->cls;
    session_effective_opts(s, s->cls, &t->opts);
    t->key = key;
    t->budget = s->budget;
    t->tightest = s->tightest;
    t->gen = s->gen;
    t->base_peak = s->base.peak;
    t->base_cost = s->base.cost;
    t->bound = -1;
    answer_init(&t->result);
    answer_init(&t->box);
    pthread_mutex_init(&t->mu, NULL);
    s->fg = t;
    s->fg_id = worker_submit(s->w, LANE_SOLVE, 1, &want_ops, t);
    return 0;
}

int session_fd(const Session *s)
{
    return worker_fd(s->w);
}

int session_poll(Session *s)
{
    s->changed = 0;
    want_take(s);
    TaskDone d;
    while (worker_take(s->w, &d)) {
        if (d.ops != &want_ops && d.ops != &bg_ops)
            s->changed |= SESSION_TASK;
        if (d.ops->done)
            d.ops->done(d.arg, d.cancelled);
        if (d.ops->free)
            d.ops->free(d.arg);
    }
    return s->changed;
}

/* ---- what runs ---------------------------------------------------------------- */

static BgTask *bg_of(Session *s, const void *arg)
{
    for (int i = 0; i < s->n_bg; i++)
        if (s->bg[i] == arg)
            return s->bg[i];
    return NULL;
}

void session_status(Session *s, SessionStatus *st)
{
    memset(st, 0, sizeof *st);
    LaneStatus ls, io;
    worker_status(s->w, LANE_SOLVE, &ls);
    worker_status(s->w, LANE_IO, &io);
    st->solving = s->fg != NULL;
    st->elapsed = st->solving ? clock_now() - s->since : 0;
    if (st->solving && ls.arg == s->fg)
        st->progress = ls.progress;
    for (int i = 0; i < s->n_bg; i++)
        st->bg_left += !s->bg[i]->dropped;
    const BgTask *b = ls.running ? bg_of(s, ls.arg) : NULL;
    if (b && !b->dropped) {
        char bud[32];
        units_format_bytes(b->budget, bud, sizeof bud);
        if (b->kind == WANT_FIT)
            snprintf(st->bg_what, sizeof st->bg_what, "batch fit with %s", b->cls->name);
        else if (b->kind == WANT_BOUND)
            snprintf(st->bg_what, sizeof st->bg_what, "lower bound at %s", bud);
        else
            snprintf(st->bg_what, sizeof st->bg_what, "%s at %s", b->cls->name, bud);
    }
    st->io_left = io.queued + (io.running != 0);
    if (io.running) {
        snprintf(st->io_what, sizeof st->io_what, "%s", io.ops->name);
        st->io_elapsed = clock_now() - io.since;
        st->io_progress = io.progress;
    }
}

/* ---- background answers --------------------------------------------------------- */

static int bg_same(const BgTask *b, const SessionWant *w, const char *key)
{
    return b->kind == w->kind && (w->kind == WANT_BOUND || (b->cls == w->cls && !strcmp(b->key, key))) &&
           b->budget == w->budget;
}

static int answered(Session *s, const SessionWant *w, const char *key)
{
    if (w->kind == WANT_PLAN)
        return cache_find(s, w->cls, key, w->budget) != NULL;
    if (w->kind == WANT_FIT)
        return fit_find(s, w->cls, key, w->budget) != NULL;
    int rc;
    double lb;
    Err e;
    /* a bound without the cascade rows (auto's) is shown until the whole
     * one comes */
    return bound_cover_known(s->g, w->budget, BOUND_SECONDS, &rc, &lb, NULL, &e);
}

void session_background(Session *s, const SessionWant *w, int n)
{
    char **keys = xcalloc((size_t)n + 1, sizeof *keys);
    for (int i = 0; i < n; i++)
        keys[i] = w[i].kind == WANT_BOUND ? xstrdup("") : effective_key(s, w[i].cls);
    for (int k = 0; k < s->n_bg; k++) {
        BgTask *b = s->bg[k];
        int still = 0;
        for (int i = 0; i < n && !still; i++)
            still = bg_same(b, &w[i], keys[i]);
        if (!still && !b->dropped) {
            b->dropped = 1;
            worker_cancel(s->w, b->id);
        }
    }
    for (int i = 0; i < n; i++) {
        int sent = answered(s, &w[i], keys[i]);
        for (int k = 0; k < s->n_bg && !sent; k++)
            sent = !s->bg[k]->dropped && bg_same(s->bg[k], &w[i], keys[i]);
        /* the want's own answer is on its way already */
        if (!sent && w[i].kind == WANT_PLAN && s->fg)
            sent = s->fg->cls == w[i].cls && s->fg->budget == w[i].budget && !strcmp(s->fg->key, keys[i]);
        if (sent)
            continue;
        BgTask *b = xcalloc(1, sizeof *b);
        b->s = s;
        b->kind = w[i].kind;
        b->cls = w[i].cls;
        if (b->kind != WANT_BOUND)
            session_effective_opts(s, b->cls, &b->opts);
        b->key = xstrdup(keys[i]);
        b->budget = w[i].budget;
        answer_init(&b->a);
        fit_result_init(&b->fit);
        xgrow((void **)&s->bg, &s->cap_bg, s->n_bg + 1, sizeof *s->bg);
        s->bg[s->n_bg++] = b;
        b->id = worker_submit(s->w, LANE_SOLVE, 0, &bg_ops, b);
    }
    for (int i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
}

int session_computing(Session *s, const SessionWant *w)
{
    LaneStatus ls;
    worker_status(s->w, LANE_SOLVE, &ls);
    const BgTask *b = ls.running ? bg_of(s, ls.arg) : NULL;
    if (!b || b->dropped)
        return 0;
    char *key = w->kind == WANT_BOUND ? xstrdup("") : effective_key(s, w->cls);
    int same = bg_same(b, w, key);
    free(key);
    return same;
}

/* ---- one-shot tasks ------------------------------------------------------------- */

TaskId session_task(Session *s, const TaskOps *ops, void *arg)
{
    return worker_submit(s->w, LANE_IO, 0, ops, arg);
}

void session_task_cancel(Session *s, TaskId id)
{
    worker_cancel(s->w, id);
}
