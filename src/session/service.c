/* service.c — the solve service (service.h): a pool of prepared solvers, the
 * rule that says which answer is the command line's, and the hand-over of
 * every final plan to the solvers that keep a pool. */
#include "src/session/service.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/clock.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"
#include "src/plan/bound.h"

/* prepared solvers kept at once; the least recently used goes first */
#define POOL_MAX 12

typedef struct Pooled {
    const SolverClass *cls;
    char *key;          /* service_opts_key of its options */
    char *rules;        /* its pin= and force= values, for adopt */
    Solver *s;          /* NULL when the class refused the graph */
    int rc;
    Err err;
    Plan prev;          /* its last plan, for resolve */
    int used;           /* it has solved or adopted: a fresh solve would differ */
    unsigned stamp;
} Pooled;

struct Service {
    const Graph *g;
    Pooled pool[POOL_MAX];
    int n_pool;
    unsigned stamp;
};

/* ---- answers ----------------------------------------------------------- */

void answer_init(Answer *a)
{
    memset(a, 0, sizeof *a);
    plan_init(&a->plan);
    overlay_init(&a->ov);
    err_clear(&a->err);
}

void answer_done(Answer *a)
{
    plan_done(&a->plan);
    sim_done(&a->sim);
    overlay_done(&a->ov);
    free(a->opts_key);
    answer_init(a);
}

static void sim_copy(Sim *dst, const Sim *src)
{
    *dst = *src;
    dst->mem = NULL;
    dst->held_until = NULL;
    if (src->T <= 0)
        return;
    dst->mem = xmallocarray((size_t)src->T, sizeof *dst->mem);
    dst->held_until = xmallocarray((size_t)src->T, sizeof *dst->held_until);
    memcpy(dst->mem, src->mem, (size_t)src->T * sizeof *dst->mem);
    memcpy(dst->held_until, src->held_until, (size_t)src->T * sizeof *dst->held_until);
}

void answer_copy(Answer *dst, const Answer *src)
{
    answer_done(dst);
    *dst = *src;
    dst->opts_key = src->opts_key ? xstrdup(src->opts_key) : NULL;
    plan_init(&dst->plan);
    plan_copy(&dst->plan, &src->plan);
    sim_copy(&dst->sim, &src->sim);
    overlay_init(&dst->ov);
    overlay_copy(&dst->ov, &src->ov);
}

void answer_move(Answer *dst, Answer *src)
{
    answer_done(dst);
    *dst = *src;
    memset(&src->sim, 0, sizeof src->sim);
    src->opts_key = NULL;
    plan_init(&src->plan);
    overlay_init(&src->ov);
    answer_init(src);
}

double answer_cost(const Answer *a)
{
    if (!a->has_plan || (a->budget != PLAN_NO_BUDGET && a->plan.peak > a->budget))
        return INFINITY;
    return a->plan.cost;
}

/* ---- options ------------------------------------------------------------ */

static int by_key(const void *a, const void *b)
{
    return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

char *service_opts_key(const SolverOpts *o)
{
    int n = o ? o->n : 0;
    if (n == 0)
        return xstrdup("");
    char *const *k[SOLVER_OPTS_MAX];
    size_t len = 1;
    for (int i = 0; i < n; i++) {
        k[i] = &o->key[i];
        len += strlen(o->key[i]) + strlen(o->val[i]) + 2;
    }
    qsort(k, (size_t)n, sizeof *k, by_key);
    char *s = xmalloc(len), *p = s;
    for (int i = 0; i < n; i++) {
        int at = (int)(k[i] - o->key);
        size_t kl = strlen(o->key[at]), vl = strlen(o->val[at]);
        if (i)
            *p++ = ';';
        memcpy(p, o->key[at], kl);
        p += kl;
        *p++ = '=';
        memcpy(p, o->val[at], vl);
        p += vl;
    }
    *p = '\0';
    return s;
}

/* The node rules of opts as one text: plans made under the same rules may
 * be handed from one solver to another. */
static char *rules_key(const SolverOpts *o)
{
    SolverOpts r;
    solver_opts_init(&r);
    Err e;
    for (int i = 0; o && i < o->n; i++)
        if (!strcmp(o->key[i], "pin") || !strcmp(o->key[i], "force")) {
            size_t n = strlen(o->key[i]) + strlen(o->val[i]) + 2;
            char *kv = xmalloc(n);
            memcpy(kv, o->key[i], strlen(o->key[i]));
            kv[strlen(o->key[i])] = '=';
            memcpy(kv + strlen(o->key[i]) + 1, o->val[i], strlen(o->val[i]) + 1);
            solver_opts_add(&r, kv, &e);
            free(kv);
        }
    char *k = service_opts_key(&r);
    solver_opts_done(&r);
    return k;
}

/* ---- the pool --------------------------------------------------------------- */

Service *service_new(const Graph *g)
{
    Service *en = xcalloc(1, sizeof *en);
    en->g = g;
    return en;
}

static void pooled_done(Pooled *pe)
{
    solver_free(pe->s);
    plan_done(&pe->prev);
    free(pe->key);
    free(pe->rules);
    memset(pe, 0, sizeof *pe);
}

void service_free(Service *en)
{
    if (!en)
        return;
    for (int i = 0; i < en->n_pool; i++)
        pooled_done(&en->pool[i]);
    free(en);
}

static Pooled *pool_find(Service *en, const SolverClass *cls, const char *key)
{
    for (int i = 0; i < en->n_pool; i++)
        if (en->pool[i].cls == cls && !strcmp(en->pool[i].key, key))
            return &en->pool[i];
    return NULL;
}

/* The prepared solver for (cls, opts), prepared now when it is not in the
 * pool. A cancelled prepare is not kept: the next request prepares again. */
static Pooled *pool_get(Service *en, const SolverClass *cls, const SolverOpts *opts, const char *key,
                        Progress *p)
{
    Pooled *pe = pool_find(en, cls, key);
    if (pe) {
        pe->stamp = ++en->stamp;
        return pe;
    }
    if (en->n_pool < POOL_MAX) {
        pe = &en->pool[en->n_pool++];
    } else {
        pe = &en->pool[0];
        for (int i = 1; i < en->n_pool; i++)
            if (en->pool[i].stamp < pe->stamp)
                pe = &en->pool[i];
        pooled_done(pe);
    }
    pe->cls = cls;
    pe->key = xstrdup(key);
    pe->rules = rules_key(opts);
    pe->stamp = ++en->stamp;
    plan_init(&pe->prev);
    err_clear(&pe->err);
    pe->s = solver_new_cancellable(cls, en->g, opts, p, &pe->err);
    pe->rc = pe->s ? ERR_OK : (pe->err.code ? pe->err.code : ERR_INVALID);
    if (pe->rc == ERR_CANCELLED) {
        pooled_done(pe);
        *pe = en->pool[--en->n_pool];
        return NULL;
    }
    return pe;
}

/* A final plan of (cls, rules) goes to every prepared solver that keeps a
 * pool under the same rules. The origin a pool records must be a static
 * name: the class that made the plan, or the member a portfolio names. */
static void adopt_everywhere(Service *en, const char *rules, const Answer *a)
{
    const SolverClass *by = a->plan.origin ? solver_find(a->plan.origin) : NULL;
    const char *origin = by ? by->name : a->cls->name;
    for (int i = 0; i < en->n_pool; i++) {
        Pooled *pe = &en->pool[i];
        if (pe->s && pe->cls->adopt && !strcmp(pe->rules, rules)) {
            pe->cls->adopt(pe->s, a->plan.steps, a->plan.T, origin);
            pe->used = 1;
        }
    }
}

/* Plan s at budget into out (figures, simulation, structure). */
static void answer_from(Solver *s, int64_t budget, const Plan *prev, Progress *p, Answer *out)
{
    out->rc = solver_plan_sim(s, budget, prev, &out->plan, &out->sim, p, &out->err);
    out->has_plan = (out->rc == ERR_OK || out->rc == ERR_OVER_BUDGET) && out->plan.T > 0;
    if (out->has_plan && s->cls->describe)
        s->cls->describe(s, &out->ov);
}

int service_answer(Service *en, const SolverClass *cls, const SolverOpts *opts, int64_t budget, int quick,
                  Progress *p, Answer *out)
{
    double t0 = clock_now();
    answer_init(out);
    out->cls = cls;
    out->budget = budget;
    out->opts_key = service_opts_key(opts);
    Pooled *pe = pool_get(en, cls, opts, out->opts_key, p);
    if (!pe) {
        out->rc = err_set(&out->err, ERR_CANCELLED, "%s: cancelled", cls->name);
        return out->rc;
    }
    if (!pe->s) {
        out->rc = pe->rc;
        out->err = pe->err;
        out->final = 1;     /* a refusal is the command line's answer too */
        out->secs = clock_now() - t0;
        return out->rc;
    }
    /* the prepared solver gives the command line's plan when the class has
     * no warm start, or when nothing warms it yet */
    int same = !cls->resolve || !pe->used;
    if (quick || same) {
        answer_from(pe->s, budget, pe->prev.T ? &pe->prev : NULL, p, out);
        out->final = same;
        if (out->has_plan) {
            plan_copy(&pe->prev, &out->plan);
            pe->used = 1;
        }
    } else {
        Err e;
        err_clear(&e);
        Solver *s = solver_new_cancellable(cls, en->g, opts, p, &e);
        if (!s) {
            out->rc = e.code ? e.code : ERR_INVALID;
            out->err = e;
        } else {
            answer_from(s, budget, NULL, p, out);
            solver_free(s);
        }
        out->final = out->rc != ERR_CANCELLED;
    }
    if (out->final && out->has_plan && out->rc != ERR_CANCELLED)
        adopt_everywhere(en, pe->rules, out);
    out->secs = clock_now() - t0;
    return out->rc;
}

int service_solve(const Graph *g, const SolverClass *cls, const SolverOpts *opts, int64_t budget,
                 Progress *p, Answer *out)
{
    Service *en = service_new(g);
    int rc = service_answer(en, cls, opts, budget, 0, p, out);
    service_free(en);
    return rc;
}

int service_tightest(Service *en, const SolverClass *cls, const SolverOpts *opts, Progress *p, Answer *out,
                     int64_t *lo)
{
    *lo = bound_min_peak(en->g, NULL);
    double t0 = clock_now();
    int rc = service_answer(en, cls, opts, *lo, 0, p, out);
    /* met (the bound is reached), failed, or cancelled: that is the answer */
    if (rc != ERR_OVER_BUDGET || !out->has_plan || progress_cancelled(p)) {
        out->secs = clock_now() - t0;
        return rc;
    }
    Answer second;
    int rc2 = service_answer(en, cls, opts, out->plan.peak, 0, p, &second);
    if (rc2 == ERR_CANCELLED) {
        answer_move(out, &second);
    } else if (rc2 == ERR_OK && second.has_plan && second.plan.cost < out->plan.cost) {
        answer_move(out, &second);
    } else {
        out->budget = out->plan.budget = out->plan.peak;
        out->rc = ERR_OK;
        err_clear(&out->err);
    }
    answer_done(&second);
    out->secs = clock_now() - t0;
    return out->rc;
}

void service_tightest_say(int64_t reached, int64_t lo, int64_t baseline, char *buf, size_t n)
{
    char b[32], l[32];
    units_format_bytes(reached, b, sizeof b);
    units_format_bytes(lo, l, sizeof l);
    double pct = baseline > 0 ? 100.0 * (double)reached / (double)baseline : 0,
           lpct = baseline > 0 ? 100.0 * (double)lo / (double)baseline : 0;
    if (reached <= lo)
        snprintf(buf, n, "tightest budget reached %s (%.1f%% of the baseline peak); no schedule peaks "
                         "lower (the peak bound), so none is tighter", b, pct);
    else
        snprintf(buf, n, "tightest budget reached %s (%.1f%% of the baseline peak); the peak bound is %s "
                         "(%.1f%%): the solver fell short or the bound is loose", b, pct, l, lpct);
}
