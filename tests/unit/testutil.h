/* testutil.h — shared helpers for the cmocka unit tests: build a graph from
 * a compact text, run a solver end to end, re-validate its plan with an
 * independent checker (written here from the spec, not from sim.c), and
 * drive a session's worker. */
#ifndef REMAT_TESTUTIL_H
#define REMAT_TESTUTIL_H

#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "src/graph/graph.h"
#include "src/graph/graph_io.h"
#include "src/plan/plan.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/graph/transform.h"
#include "src/session/session.h"

/* For the group state every cmocka test takes and most never read. */
#define TU_UNUSED __attribute__((unused))

/* A test file's main: TU_MAIN(TU_TEST(test_a) TU_TEST(test_b)) runs the
 * tests in that order, with no group set-up or tear-down. */
#define TU_TEST(f) cmocka_unit_test(f),
#define TU_MAIN(list)                                                                                  \
    int main(void)                                                                                     \
    {                                                                                                  \
        const struct CMUnitTest tests_[] = {list};                                                     \
        return cmocka_run_group_tests(tests_, NULL, NULL);                                             \
    }

/* Graph from JSON text; fails the test on error. */
static inline Graph *tu_graph_json(const char *json)
{
    Err e;
    err_clear(&e);
    Graph *g = graph_from_json(json, strlen(json), "test.json", &e);
    if (!g)
        fail_msg("graph_from_json: %s", e.msg);
    return g;
}

/* Compact graph text: "A; B:A; C:B; D:B,C; E:A,D" = fwd nodes with inputs,
 * unit size and cost; a leading '!' marks an input node ("!x; A:x"). An
 * optional "=size" after the id sets the size ("A=3:x"). Outputs are sinks. */
static inline Graph *tu_graph(const char *spec)
{
    Graph *g = graph_new();
    Err e;
    err_clear(&e);
    char *s = strdup(spec), *save = NULL;
    for (char *tok = strtok_r(s, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        while (*tok == ' ')
            tok++;
        if (!*tok)
            continue;
        Phase ph = PHASE_FWD;
        if (*tok == '!') {
            ph = PHASE_INPUT;
            tok++;
        }
        char *colon = strchr(tok, ':');
        if (colon)
            *colon = '\0';
        int64_t size = 1;
        char *eq = strchr(tok, '=');
        if (eq) {
            *eq = '\0';
            size = atoll(eq + 1);
        }
        int v = graph_add_node(g, tok, NULL, ph, size, 1, 0, NULL, &e);
        if (v < 0)
            fail_msg("tu_graph: %s", e.msg);
        if (colon) {
            char *save2 = NULL;
            for (char *in = strtok_r(colon + 1, ",", &save2); in; in = strtok_r(NULL, ",", &save2))
                graph_add_input_name(g, v, in);
        }
    }
    free(s);
    if (graph_finalize(g, &e))
        fail_msg("tu_graph finalize: %s", e.msg);
    return g;
}

/* The training graph (graph_make_training) of forward graph f, which it
 * frees; fails the test when f cannot be made one. */
static inline Graph *tu_make_training(Graph *f)
{
    Err e;
    err_clear(&e);
    Graph *g = graph_make_training(f, &e);
    if (!g)
        fail_msg("graph_make_training: %s", e.msg);
    graph_free(f);
    return g;
}

/* The training graph (graph_make_training) of a tu_graph spec. */
static inline Graph *tu_training(const char *spec)
{
    return tu_make_training(tu_graph(spec));
}

/* The baseline (graph order, no recomputation) peak of g, for the tests
 * that need only the peak of sim_baseline. */
static inline int64_t tu_baseline_peak(const Graph *g)
{
    int64_t peak;
    double cost;
    sim_baseline(g, &peak, &cost);
    return peak;
}

/* An LSTM-like forward graph: input x, then 6 blocks of a matmul and 3
 * tanh ops, every value of size 10 and each node reading the one before.
 * With costs, a matmul costs 100 and a tanh 1; without, the default. */
static inline Graph *tu_lstm_graph(int costs)
{
    char nodes[8192];
    size_t u = (size_t)snprintf(nodes, sizeof nodes,
                                "{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"x\",\"phase\":\"input\",\"size\":10}");
    char prev[32] = "x", id[32];
    for (int blk = 0; blk < 6; blk++) {
        for (int j = -1; j < 3; j++) {
            int mm = j < 0;
            if (mm)
                snprintf(id, sizeof id, "mm%d", blk);
            else
                snprintf(id, sizeof id, "ew%d_%d", blk, j);
            u += (size_t)snprintf(nodes + u, sizeof nodes - u,
                                  ",{\"id\":\"%s\",\"op\":\"%s\",\"size\":10%s,\"inputs\":[\"%s\"]}", id,
                                  mm ? "matmul" : "tanh", !costs ? "" : mm ? ",\"cost\":100" : ",\"cost\":1", prev);
            memcpy(prev, id, sizeof prev);
        }
    }
    snprintf(nodes + u, sizeof nodes - u, "]}");
    return tu_graph_json(nodes);
}

/* Independent re-validation of a schedule, straight from spec §3 with
 * no shared code: O(T^2), for small tests. Returns peak, or -1 if invalid. */
static inline int64_t tu_check_peak(const Graph *g, const int *s, int T, double *cost)
{
    int64_t inputs = 0;
    for (int v = 0; v < g->n; v++)
        if (g->nodes[v].phase == PHASE_INPUT)
            inputs += g->nodes[v].size;
    int64_t peak = inputs;
    double c = 0;
    for (int t = 0; t < T; t++) {
        int v = s[t];
        if (g->nodes[v].phase == PHASE_INPUT)
            return -1;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int u = g->in_idx[k];
            if (g->nodes[u].phase == PHASE_INPUT)
                continue;
            int found = 0;
            for (int q = 0; q < t; q++)
                found |= s[q] == u;
            if (!found)
                return -1;
        }
        c += g->nodes[v].cost;
    }
    for (int i = 0; i < g->n_outputs; i++) {
        int o = g->outputs[i], found = 0;
        for (int q = 0; q < T; q++)
            found |= s[q] == o;
        if (!found && g->nodes[o].phase != PHASE_INPUT)
            return -1;
    }
    for (int t = 0; t < T; t++) {
        int64_t m = inputs + g->nodes[s[t]].workspace;
        /* a copy produced at p is alive at t if p <= t and (p == t, or some
         * step r >= t reads it before the next production of the same node,
         * or it is an output's last production) */
        for (int p = 0; p <= t; p++) {
            int u = s[p], alive = p == t, next = T;
            for (int q = p + 1; q < T; q++)
                if (s[q] == u) {
                    next = q;
                    break;
                }
            if (!alive && next == T && g->is_output[u])
                alive = 1;
            for (int r = t; r < next && !alive; r++)
                for (int k = g->in_off[s[r]]; k < g->in_off[s[r] + 1]; k++)
                    if (g->in_idx[k] == u && r > p)
                        alive = 1;
            if (alive)
                m += g->nodes[u].size;
        }
        if (m > peak)
            peak = m;
    }
    if (cost)
        *cost = c;
    return peak;
}

/* A chain of nf forward nodes with occasional skip edges, made a training
 * graph: sizes 1..4, costs 1..3 and (with ws) a workspace of 1 on about a
 * fifth of the nodes, from a linear congruential seed. */
static inline Graph *tu_random_chain_training(unsigned *seed, int nf, int ws)
{
    Graph *f = graph_new();
    Err e;
    char id[16], in[16];
    graph_add_node(f, "x", "input", PHASE_INPUT, 1, 0, 0, NULL, &e);
    for (int v = 0; v < nf; v++) {
        *seed = *seed * 1103515245u + 12345u;
        snprintf(id, sizeof id, "f%d", v);
        int i = graph_add_node(f, id, "op", PHASE_FWD, 1 + (*seed >> 16) % 4, 1 + (*seed >> 20) % 3,
                               ws && (*seed >> 12) % 5 == 0 ? 1 : 0, NULL, &e);
        snprintf(in, sizeof in, v ? "f%d" : "x", v - 1);
        graph_add_input_name(f, i, in);
        if (v >= 2 && (*seed >> 24) % 3 == 0) {
            snprintf(in, sizeof in, "f%d", (int)((*seed >> 8) % (unsigned)(v - 1)));
            graph_add_input_name(f, i, in);
        }
    }
    assert_int_equal(graph_finalize(f, &e), ERR_OK);
    return tu_make_training(f);
}

/* The next draw of a linear congruential seed. */
static inline uint32_t tu_rng(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* A training graph of 1 to 8 forward nodes of sizes 1..4 that all read x,
 * each reading every earlier one with probability 1/edge_odds. */
static inline Graph *tu_random_training(uint32_t *seed, uint32_t edge_odds)
{
    int n = 1 + (int)(tu_rng(seed) % 8);
    char spec[1024];
    size_t u = (size_t)snprintf(spec, sizeof spec, "!x");
    for (int v = 0; v < n; v++) {
        u += (size_t)snprintf(spec + u, sizeof spec - u, "; f%d=%u:x", v, 1 + tu_rng(seed) % 4);
        for (int w = 0; w < v; w++)
            if (tu_rng(seed) % edge_odds == 0)
                u += (size_t)snprintf(spec + u, sizeof spec - u, ",f%d", w);
    }
    return tu_training(spec);
}

/* Graph loaded from a file (any format graph_load reads); fails the test
 * naming the file on error. */
static inline Graph *tu_load(const char *path)
{
    Err e;
    err_clear(&e);
    Graph *g = graph_load(path, &e);
    if (!g)
        fail_msg("%s: %s", path, e.msg);
    return g;
}

/* The training graph of the forward chain x -> P<first> -> ... ->
 * P<first+n-1> (P the prefix), unit sizes and costs. */
static inline Graph *tu_chain_training(const char *prefix, int first, int n)
{
    char spec[4096];
    size_t u = (size_t)snprintf(spec, sizeof spec, "!x; %s%d:x", prefix, first);
    for (int i = first + 1; i < first + n; i++)
        u += (size_t)snprintf(spec + u, sizeof spec - u, "; %s%d:%s%d", prefix, i, prefix, i - 1);
    return tu_training(spec);
}

/* Plan p re-checked by the independent checker: valid, and the same peak
 * and cost as the plan says. */
static inline void tu_check_plan(const Graph *g, const Plan *p)
{
    double c = -1;
    int64_t pk = tu_check_peak(g, p->steps, p->T, &c);
    assert_true(pk >= 0);
    assert_int_equal(pk, p->peak);
    assert_true(c == p->cost);
}

/* Plan p re-checked by the independent checker against a budget: valid
 * and peaking within it, else the test fails; returns the checker's cost. */
static inline double tu_check_within(const Graph *g, const Plan *p, int64_t budget)
{
    double c = -1;
    int64_t pk = tu_check_peak(g, p->steps, p->T, &c);
    assert_true(pk >= 0 && pk <= budget);
    return c;
}

/* What a search offers while it runs (Progress.offer, ctx a TuOffers):
 * each plan valid and within the budget by the independent checker, from
 * `origin` (NULL: any, but named), and cheaper than the one before; n and
 * last count them. The lower bounds it tells (Progress.on_bound): each
 * positive and above the one before; nbounds and bound count them. */
typedef struct {
    const Graph *g;
    int64_t budget;
    const char *origin;
    int n;
    double last;
    int nbounds;
    double bound;
} TuOffers;

static inline void tu_on_bound(void *ctx, double bound)
{
    TuOffers *o = ctx;
    if (!(bound > 0) || (o->nbounds > 0 && !(bound > o->bound)))
        fail_msg("bound %d is %g, after %g", o->nbounds + 1, bound, o->bound);
    o->bound = bound;
    o->nbounds++;
}

static inline void tu_on_offer(void *ctx, const int *steps, int T, const char *origin)
{
    TuOffers *o = ctx;
    double c;
    int64_t pk = tu_check_peak(o->g, steps, T, &c);
    assert_non_null(origin);
    if (o->origin)
        assert_string_equal(origin, o->origin);
    if (pk < 0 || pk > o->budget)
        fail_msg("offer %d: peak %lld, budget %lld", o->n + 1, (long long)pk, (long long)o->budget);
    if (o->n > 0 && !(c < o->last))
        fail_msg("offer %d costs %g, not below the one before (%g)", o->n + 1, c, o->last);
    o->last = c;
    o->n++;
}

/* A fresh Progress whose listener is tu_on_offer, checking into o. */
static inline void tu_listen(Progress *pr, TuOffers *o)
{
    progress_init(pr);
    pr->offer = tu_on_offer;
    pr->on_bound = tu_on_bound;
    pr->offer_ctx = o;
}

/* solver_new for class `name` with options (NULL-terminated "k=v" list, a
 * bad one fails the test); NULL with *e set when the solver refuses g. */
static inline Solver *tu_solver_new(const Graph *g, const char *name, const char *const *opts, Err *e)
{
    const SolverClass *cls = solver_find(name);
    if (!cls)
        fail_msg("no solver %s", name);
    SolverOpts o;
    solver_opts_init(&o);
    err_clear(e);
    for (int i = 0; opts && opts[i]; i++)
        assert_int_equal(solver_opts_add(&o, opts[i], e), ERR_OK);
    Solver *s = solver_new(cls, g, &o, e);
    solver_opts_done(&o);
    return s;
}

/* A solver for g with options (NULL-terminated "k=v" list); fails the test
 * when it cannot be made. */
static inline Solver *tu_solver(const Graph *g, const char *name, const char *const *opts)
{
    Err e;
    Solver *s = tu_solver_new(g, name, opts, &e);
    if (!s)
        fail_msg("solver %s: %s", name, e.msg);
    return s;
}

/* One solver_plan call (warm-started from prev when non-NULL) into a fresh
 * *out; returns its status. */
static inline int tu_plan(Solver *s, int64_t budget, const Plan *prev, Plan *out)
{
    Err e;
    err_clear(&e);
    plan_init(out);
    return solver_plan(s, budget, prev, out, NULL, &e);
}

/* The structure behind the solver's last solve, into a fresh *o. */
static inline void tu_describe(Solver *s, Overlay *o)
{
    overlay_init(o);
    assert_non_null(s->cls->describe);
    s->cls->describe(s, o);
}

/* Run solver `name` with options (NULL-terminated "k=v" list) at budget;
 * returns the solver_plan status, the plan in *out. */
static inline int tu_solve(const Graph *g, const char *name, int64_t budget, Plan *out,
                           const char *const *opts)
{
    Err e;
    Solver *s = tu_solver_new(g, name, opts, &e);
    if (!s)
        return e.code;
    int rc = tu_plan(s, budget, NULL, out);
    solver_free(s);
    return rc;
}

/* The end of a test: each plan of the NULL-ended list done, then the
 * solver and the graph freed (either may be NULL): tu_end(g, s, &p, NULL). */
static inline void tu_end(Graph *g, Solver *s, ...)
{
    va_list ap;
    va_start(ap, s);
    for (Plan *p = va_arg(ap, Plan *); p; p = va_arg(ap, Plan *))
        plan_done(p);
    va_end(ap);
    solver_free(s);
    graph_free(g);
}

/* A session on g (the session takes it) with solver cls; fails the test
 * when it cannot be made. */
static inline Session *tu_session(Graph *g, const SolverClass *cls)
{
    Err e;
    err_clear(&e);
    Session *s = session_new(g, cls, NULL, &e);
    if (!s)
        fail_msg("session_new: %s", e.msg);
    return s;
}

/* Wait up to ms milliseconds for the worker's pipe, then take whatever
 * answers have arrived. */
static inline void tu_session_pump(Session *s, int ms)
{
    struct pollfd pf = {.fd = session_fd(s), .events = POLLIN};
    poll(&pf, 1, ms);
    session_poll(s);
}

#endif
