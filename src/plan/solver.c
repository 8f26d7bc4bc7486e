/* solver.c — binding a solver class to a graph, option handling, and the
 * common tail of every solve: simulate, fill figures, check the budget. */
#include "src/plan/solver.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <time.h>

#include "src/base/clock.h"

#include "src/base/units.h"
#include "src/base/xalloc.h"

static const SolverParam *find_param(const SolverClass *cls, const char *name);

void progress_init(Progress *p)
{
    atomic_store(&p->cancel, 0);
    atomic_store(&p->done, 0.0);
    p->offer = NULL;
    p->on_bound = NULL;
    p->offer_ctx = NULL;
}

void progress_offer(Progress *p, const int *steps, int T, const char *origin)
{
    if (p && p->offer && T > 0)
        p->offer(p->offer_ctx, steps, T, origin);
}

void progress_bound(Progress *p, double bound)
{
    if (p && p->on_bound && bound > 0)
        p->on_bound(p->offer_ctx, bound);
}

int progress_cancelled(Progress *p)
{
    return p && atomic_load_explicit(&p->cancel, memory_order_relaxed);
}

void progress_set(Progress *p, double done)
{
    if (p)
        atomic_store_explicit(&p->done, done, memory_order_relaxed);
}

void solver_opts_init(SolverOpts *o)
{
    memset(o, 0, sizeof *o);
}

void solver_opts_done(SolverOpts *o)
{
    for (int i = 0; i < o->n; i++) {
        free(o->key[i]);
        free(o->val[i]);
    }
    solver_opts_init(o);
}

static void opts_put(SolverOpts *o, const char *k, size_t klen, const char *v)
{
    for (int i = 0; i < o->n; i++)
        if (strlen(o->key[i]) == klen && strncmp(o->key[i], k, klen) == 0) {
            free(o->val[i]);
            o->val[i] = xstrdup(v);
            return;
        }
    o->key[o->n] = xmalloc(klen + 1);
    memcpy(o->key[o->n], k, klen);
    o->key[o->n][klen] = '\0';
    o->val[o->n] = xstrdup(v);
    o->n++;
}

int solver_opts_add(SolverOpts *o, const char *kv, Err *e)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return err_set(e, ERR_USAGE, "solver option '%s': expected key=value", kv);
    if (o->n >= SOLVER_OPTS_MAX)
        return err_set(e, ERR_USAGE, "too many solver options (at most %d)", SOLVER_OPTS_MAX);
    opts_put(o, kv, (size_t)(eq - kv), eq + 1);
    return ERR_OK;
}

const SolverParam *solver_param(const SolverClass *cls, const char *name)
{
    return find_param(cls, name);
}

static const SolverParam *find_param(const SolverClass *cls, const char *name)
{
    for (const SolverParam *p = cls->params; p && p->name; p++)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

Solver *solver_new(const SolverClass *cls, const Graph *g, const SolverOpts *opts, Err *e)
{
    return solver_new_cancellable(cls, g, opts, NULL, e);
}

/* The index of w among the '|'-separated words, or -1. */
static int word_index(const char *words, const char *w)
{
    size_t n = strlen(w);
    int i = 0;
    for (const char *p = words; p && *p; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, w, n) == 0)
            return i;
        p += len + (bar ? 1 : 0);
    }
    return -1;
}

static void fmt_num(double x, char *buf, size_t n)
{
    if (x >= 1e15 || x <= -1e15)
        snprintf(buf, n, "%g", x);
    else if (x == (double)(long long)x)
        snprintf(buf, n, "%lld", (long long)x);
    else
        snprintf(buf, n, "%g", x);
}

void solver_param_kind(const SolverParam *p, char *buf, size_t n)
{
    char lo[32], hi[32];
    fmt_num(p->lo, lo, sizeof lo);
    fmt_num(p->hi, hi, sizeof hi);
    switch (p->kind) {
    case OPT_INT:
    case OPT_NUM:
        snprintf(buf, n, "%s..%s (%s)%s%s", lo, hi, p->kind == OPT_INT ? "an integer" : "a number",
                 p->words ? " or " : "", p->words ? p->words : "");
        break;
    case OPT_CHOICE:
        snprintf(buf, n, "%s", p->words);
        break;
    default:
        snprintf(buf, n, "text");
    }
}

int solver_param_check(const SolverParam *p, const char *val, Err *e)
{
    if (p->kind == OPT_TEXT || (p->words && word_index(p->words, val) >= 0))
        return ERR_OK;
    int ok = 0;
    if (p->kind == OPT_INT || p->kind == OPT_NUM) {
        char *end;
        errno = 0;
        double x = p->kind == OPT_INT ? (double)strtoll(val, &end, 10) : strtod(val, &end);
        ok = !errno && end != val && !*end && isfinite(x) && x >= p->lo && x <= p->hi;
    }
    if (ok)
        return ERR_OK;
    char want[160];
    solver_param_kind(p, want, sizeof want);
    return err_set(e, ERR_USAGE, "option %s=%s: expected %s", p->name, val, want);
}

static int is_rule_key(const char *k)
{
    return strcmp(k, "pin") == 0 || strcmp(k, "force") == 0;
}

/* Fill rule[] from one pin=/force= list: comma-separated node ids. */
static int parse_rules(const Graph *g, const char *key, const char *list, unsigned char *rule,
                       Err *e)
{
    int want = strcmp(key, "pin") == 0 ? NODE_PIN : NODE_FORCE;
    const char *p = list;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        char id[512];
        if (len == 0 || len >= sizeof id)
            return err_set(e, ERR_USAGE, "option %s=%s: expected node ids separated by commas", key,
                           list);
        memcpy(id, p, len);
        id[len] = '\0';
        int v = graph_find(g, id);
        if (v < 0)
            return err_set(e, ERR_USAGE, "option %s: no node '%s' in the graph", key, id);
        if (g->nodes[v].phase == PHASE_INPUT)
            return err_set(e, ERR_USAGE, "option %s: '%s' is an input: it never runs", key, id);
        if (rule[v] && rule[v] != want)
            return err_set(e, ERR_USAGE, "node '%s' is both pinned and forced", id);
        rule[v] = (unsigned char)want;
        p += len + (c ? 1 : 0);
    }
    return ERR_OK;
}

static unsigned char *rules_from_opts(const SolverClass *cls, const Graph *g, const SolverOpts *opts,
                                      Err *e, int *rc)
{
    *rc = ERR_OK;
    unsigned char *rule = NULL;
    for (int i = 0; opts && i < opts->n && !*rc; i++) {
        if (!is_rule_key(opts->key[i]) || !opts->val[i][0])
            continue;
        if (!(cls->caps & SOLVER_CONSTRAINTS)) {
            *rc = err_set(e, ERR_UNSUPPORTED,
                          "%s cannot honour pin/force: it chooses recomputations by its own rule "
                          "(fastsa, checkmate and auto can)", cls->name);
            break;
        }
        if (!rule)
            rule = xcalloc((size_t)g->n + 1, 1);
        *rc = parse_rules(g, opts->key[i], opts->val[i], rule, e);
    }
    if (*rc) {
        free(rule);
        return NULL;
    }
    return rule;
}

Solver *solver_new_cancellable(const SolverClass *cls, const Graph *g, const SolverOpts *opts,
                               Progress *prog, Err *e)
{
    for (int i = 0; opts && i < opts->n; i++) {
        if (is_rule_key(opts->key[i]))
            continue;
        const SolverParam *par = find_param(cls, opts->key[i]);
        if (!par) {
            char known[256] = "";
            size_t u = 0;
            for (const SolverParam *p = cls->params; p && p->name && u < sizeof known - 40; p++)
                u += (size_t)snprintf(known + u, sizeof known - u, "%s%s", u ? ", " : "", p->name);
            err_set(e, ERR_USAGE, "solver %s has no option '%s' (options: %s)", cls->name,
                    opts->key[i], u ? known : "none");
            return NULL;
        }
        /* the table says what each option takes: checked here, once */
        if (solver_param_check(par, opts->val[i], e)) {
            err_prefix(e, cls->name);
            return NULL;
        }
    }
    int rrc;
    unsigned char *rule = rules_from_opts(cls, g, opts, e, &rrc);
    if (rrc)
        return NULL;
    Solver *s = xcalloc(1, sizeof *s);
    s->cls = cls;
    s->g = g;
    s->rule = rule;
    cands_init(&s->cands);
    sim_baseline(g, &s->base_peak, &s->base_cost);
    solver_opts_init(&s->opts);
    if (opts)
        for (int i = 0; i < opts->n; i++)
            opts_put(&s->opts, opts->key[i], strlen(opts->key[i]), opts->val[i]);
    if (cls->state_size)
        s->state = xcalloc(1, cls->state_size);
    if (cls->prepare) {
        s->prepare_progress = prog;
        int rc = cls->prepare(s, e);
        s->prepare_progress = NULL;
        if (rc) {
            if (e && !e->msg[0])
                err_set(e, rc, "%s: %s", cls->name, err_label(rc));
            solver_free(s);
            return NULL;
        }
    }
    return s;
}

void solver_free(Solver *s)
{
    if (!s)
        return;
    if (s->cls->release)
        s->cls->release(s);
    free(s->state);
    solver_opts_done(&s->opts);
    free(s->rule);
    cands_done(&s->cands);
    free(s);
}

static void *deadline_watch(void *arg)
{
    Deadline *d = arg;
    const struct timespec tick = {0, 2000000};
    while (!atomic_load(&d->stop)) {
        if (progress_cancelled(d->parent) || clock_now() >= d->at) {
            atomic_store(&d->child.cancel, 1);
            break;
        }
        nanosleep(&tick, NULL);
    }
    return NULL;
}

void deadline_start(Deadline *d, Progress *parent, double seconds)
{
    progress_init(&d->child);
    if (parent) {   /* what a member finds reaches the caller's listener */
        d->child.offer = parent->offer;
        d->child.offer_ctx = parent->offer_ctx;
    }
    d->parent = parent;
    d->at = clock_now() + seconds;
    atomic_store(&d->stop, 0);
    pthread_t *th = xmalloc(sizeof *th);
    if (pthread_create(th, NULL, deadline_watch, d) != 0) {
        /* no watcher: the deadline cannot fire, the parent's cancel still
         * reaches solvers through the child on the next start */
        free(th);
        th = NULL;
    }
    d->thread = th;
}

void deadline_stop(Deadline *d)
{
    atomic_store(&d->stop, 1);
    if (d->thread) {
        pthread_join(*(pthread_t *)d->thread, NULL);
        free(d->thread);
        d->thread = NULL;
    }
}

int solver_opt_given(const Solver *s, const char *name)
{
    for (int i = 0; i < s->opts.n; i++)
        if (strcmp(s->opts.key[i], name) == 0)
            return 1;
    return 0;
}

/* The plan keeps every pin (runs once) and force (runs twice or more). */
static int check_rules(const Solver *s, const Plan *pl, Err *e)
{
    const Graph *g = s->g;
    int *runs = xcalloc((size_t)g->n + 1, sizeof *runs);
    for (int t = 0; t < pl->T; t++)
        runs[pl->steps[t]]++;
    int rc = ERR_OK;
    for (int v = 0; v < g->n && !rc; v++) {
        if (s->rule[v] == NODE_PIN && runs[v] > 1)
            rc = err_set(e, ERR_INVALID, "solver %s recomputed pinned node '%s' (%d runs)",
                         s->cls->name, g->nodes[v].id, runs[v]);
        else if (s->rule[v] == NODE_FORCE && runs[v] < 2)
            rc = err_set(e, ERR_INVALID, "solver %s did not recompute forced node '%s'",
                         s->cls->name, g->nodes[v].id);
    }
    free(runs);
    return rc;
}

const char *solver_opt_str(const Solver *s, const char *name)
{
    for (int i = 0; i < s->opts.n; i++)
        if (strcmp(s->opts.key[i], name) == 0)
            return s->opts.val[i];
    const SolverParam *p = find_param(s->cls, name);
    return p ? p->def : NULL;
}

int solver_opt_int(const Solver *s, const char *name, long long *out, Err *e)
{
    const char *v = solver_opt_str(s, name);
    if (!v)
        return err_set(e, ERR_USAGE, "%s: no option '%s'", s->cls->name, name);
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end)
        return err_set(e, ERR_USAGE, "%s: option %s=%s: expected an integer", s->cls->name, name, v);
    *out = x;
    return ERR_OK;
}

int solver_opt_choice(const Solver *s, const char *name, int *out, Err *e)
{
    const SolverParam *p = find_param(s->cls, name);
    const char *v = solver_opt_str(s, name);
    if (!p || !v)
        return err_set(e, ERR_USAGE, "%s: no option '%s'", s->cls->name, name);
    int i = word_index(p->words, v);
    if (i < 0)
        return err_set(e, ERR_USAGE, "%s: option %s=%s: expected %s", s->cls->name, name, v,
                       p->words ? p->words : "");
    *out = i;
    return ERR_OK;
}

int solver_opt_double(const Solver *s, const char *name, double *out, Err *e)
{
    const char *v = solver_opt_str(s, name);
    if (!v)
        return err_set(e, ERR_USAGE, "%s: no option '%s'", s->cls->name, name);
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end)
        return err_set(e, ERR_USAGE, "%s: option %s=%s: expected a number", s->cls->name, name, v);
    *out = x;
    return ERR_OK;
}

/* A size for a message: human units, and the exact count where the units
 * round it ("128.7 MiB (134999750 bytes)"; "11 B"). */
static void fmt_bytes(int64_t b, char *buf, size_t n)
{
    char h[32];
    units_format_bytes(b, h, sizeof h);
    if (b < 1024 && b > -1024)
        snprintf(buf, n, "%s", h);
    else
        snprintf(buf, n, "%s (%lld bytes)", h, (long long)b);
}

int solver_plan(Solver *s, int64_t budget, const Plan *prev, Plan *out, Progress *p, Err *e)
{
    return solver_plan_sim(s, budget, prev, out, NULL, p, e);
}

int solver_plan_sim(Solver *s, int64_t budget, const Plan *prev, Plan *out, Sim *sim, Progress *p,
                    Err *e)
{
    const Graph *g = s->g;
    plan_reset(out);
    plan_set_names(out, g->name, s->cls->name);
    out->budget = budget;
    if (budget != PLAN_NO_BUDGET && !(s->cls->caps & SOLVER_BUDGETLESS)) {
        int at;
        int64_t lo = graph_min_peak(g, &at);
        if (budget < lo) {
            char b1[64], b2[64];
            fmt_bytes(budget, b1, sizeof b1);
            fmt_bytes(lo, b2, sizeof b2);
            /* at < 0: no node runs at all, the resident inputs alone exceed it */
            if (at < 0)
                return err_set(e, ERR_OVER_BUDGET,
                               "budget %s is below the smallest possible peak %s (the resident "
                               "inputs)", b1, b2);
            return err_set(e, ERR_OVER_BUDGET,
                           "budget %s is below the smallest possible peak %s (node '%s' with its "
                           "inputs, plus the resident inputs and outputs)",
                           b1, b2, g->nodes[at].id);
        }
    }
    int rc;
    if (prev && s->cls->resolve)
        rc = s->cls->resolve(s, budget, prev, out, p, e);
    else
        rc = s->cls->solve(s, budget, out, p, e);
    /* an over-budget answer with no schedule at all (a proof of
     * infeasibility under the solver's model) keeps the solver's message */
    if ((rc && rc != ERR_OVER_BUDGET) || (rc == ERR_OVER_BUDGET && out->T == 0)) {
        plan_reset(out);
        return rc;
    }
    Err se;
    err_clear(&se);
    Sim own;
    int vr = plan_evaluate_with(out, g, s->base_peak, s->base_cost, &own, &se);
    if (vr) {
        /* a solver produced an invalid schedule: a bug, reported as such */
        err_set(e, ERR_INVALID, "solver %s produced an invalid schedule: %s", s->cls->name, se.msg);
        plan_reset(out);
        return ERR_INVALID;
    }
    if (s->rule && check_rules(s, out, e)) {
        sim_done(&own);
        plan_reset(out);
        return ERR_INVALID;
    }
    if (sim)
        *sim = own;
    else
        sim_done(&own);
    if (budget != PLAN_NO_BUDGET && out->peak > budget) {
        char b1[64], b2[64];
        fmt_bytes(budget, b1, sizeof b1);
        fmt_bytes(out->peak, b2, sizeof b2);
        /* a solver that knows why (a proven minimum under its model) said
         * so; keep its reason after the measured figures */
        char why[ERR_MSG_MAX / 2] = "";
        if (rc == ERR_OVER_BUDGET && e && e->msg[0])
            snprintf(why, sizeof why, " (%.400s)", e->msg);
        return err_set(e, ERR_OVER_BUDGET,
                       "%s found no plan within budget %s; smallest peak found %s%s", s->cls->name,
                       b1, b2, why);
    }
    err_clear(e);
    return ERR_OK;
}
