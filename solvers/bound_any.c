/* bound_any.c — a lower bound on the cost of every schedule within a
 * budget, whatever its order (bound_any_cost, src/plan/bound.h).
 *
 * Why: the cover bound (cover.c) holds only for plans whose first runs
 * follow a given order, so where the best plan stays above it nothing said
 * whether another order could do better. This bound holds for all.
 *
 * Pick any node X some output needs, and look at the step that first runs
 * X in any valid schedule (tau). Every ancestor of X ran before tau, every
 * descendant after. Each ancestor u that a needed descendant reads (or an
 * output, held to the end) is then either held across tau, so its bytes
 * are in memory at tau, or made again after tau, which costs a run on top
 * of its first; and a run after tau needs its inputs then: held across tau
 * or made again after it, in turn. At tau the memory holds the resident
 * inputs, X's inputs, value and workspace, and the held set H, so H has at
 * most `budget` minus those bytes (cap). The least cost of the runs after
 * tau (the set R) over the (H, R) that obey this is a lower bound on the
 * extra cost of every schedule within the budget.
 *
 * That least cost is a knapsack over a closure; its Lagrangian is not:
 * for any lambda >= 0, min over (H, R) of cost(R) + lambda (bytes(H) -
 * cap), with the cap dropped, is at most the constrained least cost, and it
 * is a minimum-weight closure (variables "u available after tau" and "u
 * made again after tau", the latter implying the former and its inputs'
 * former), so one minimum cut (src/base/maxflow.h). Every lambda gives a
 * bound; the search over lambda (a concave function, its slope the held
 * bytes less the cap) and over X only decides how strong it is. The flow's
 * value, not the cut's, is used: a feasible flow never exceeds the least
 * closure, so rounding in the flow errs low.
 *
 * Three things make it stronger than that alone. Nodes neither ancestor
 * nor descendant of X join the network (in_net): what a descendant reads
 * of them is held across tau or made after it, from inputs there in turn.
 * A value larger than all the room at tau is never held across it (the
 * Lagrangian alone holds it in part). And two points add up (two_points):
 * the reruns between the first runs of X1 and of a descendant X2, and
 * those after X2's.
 *
 * Measured (bench_paper --any-only, docs/benchmarks.md): over both
 * budgets, the 45 cells met, unit costs +8.95 % before those three,
 * +9.28 % with them (FLOP costs +4.59 -> +4.88 %); regnet_y_400mf at 25 %
 * +8.85 -> +12.56 % (auto's plan +15.4 %), mobilenet_v3_large +8.46 ->
 * +10.71 % (+11.4 %); gpt2 and gpt_neo_2_7b at 25 % are now proven
 * optimal. The single X that gives most is early in the backward pass (a
 * softmax's or gelu's gradient: the activations still needed then are most
 * of them).
 */
#include "src/plan/bound.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/clock.h"
#include "src/base/maxflow.h"
#include "src/base/xalloc.h"
#include "src/plan/sim.h"

/* Steps of the search over lambda per X: bisection on log lambda by the
 * slope's sign, from 2^-40 to 2^40 of the scale; 24 halvings of those 80
 * octaves leave lambda within a factor 2^(80 / 2^24), a few parts in a
 * million, of the best. */
#define LAMBDA_STEPS 24

typedef struct {
    const Graph *g;
    int nx;                     /* running nodes */
    int *order;                 /* topological, running nodes */
    unsigned char *need;        /* some output needs the node */
    /* per X, rebuilt: */
    unsigned char *anc, *desc, *want, *atx;
    /* a window (two_points): the ancestors of its end X2, whose first runs
     * all come before X2's; win 0: none */
    unsigned char *anc2;
    int win, x2;
    int *pos;                   /* node -> its index in order */
    int *vid;                   /* ancestor -> its index in the network (-1: none) */
    int m;                      /* ancestors numbered */
    double cscale, sscale;      /* costs / cscale and bytes / sscale are about 1 */
} Ctx;

/* 1 when v is in X's network: an ancestor of X, or a needed node that is
 * neither an ancestor nor a descendant (incomparable: it may run before
 * tau or after it, at no extra cost either way). An incomparable value a
 * descendant reads is held across tau or runs after it, and then its
 * inputs must be there after tau in turn: a ResNet's shortcut branch in
 * the backward pass reads the block's output gradient, an ancestor of the
 * main branch's steps, so at the main branch's first step that gradient
 * (or what the shortcut made of it) is held, or the backward above it
 * runs again (regnet_y_400mf at 25 %). */
static inline int in_net(const Ctx *c, int v)
{
    return c->anc[v] || (!c->desc[v] && c->need[v] && c->g->nodes[v].phase != PHASE_INPUT);
}

/* Set out[u] for every running ancestor u of X (out cleared before). */
static void ancestors(const Ctx *c, int X, unsigned char *out)
{
    const Graph *g = c->g;
    out[X] = 1;
    for (int i = c->nx - 1; i >= 0; i--) {
        int v = c->order[i];
        if (!out[v])
            continue;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (g->nodes[g->in_idx[k]].phase != PHASE_INPUT)
                out[g->in_idx[k]] = 1;
    }
    out[X] = 0;
}

/* The bytes at X's step whatever is held: the resident inputs, X's value,
 * workspace and inputs (mark's *base). */
static int64_t base_of(const Ctx *c, int X)
{
    const Graph *g = c->g;
    int64_t b = g->input_bytes + g->nodes[X].size + g->nodes[X].workspace;
    for (int k = g->in_off[X]; k < g->in_off[X + 1]; k++)
        if (g->nodes[g->in_idx[k]].phase != PHASE_INPUT)
            b += g->nodes[g->in_idx[k]].size;
    return b;
}

/* Ancestors (anc), needed descendants (desc) of X, the ancestors wanted
 * after tau (want: read by a needed descendant, or an output; in a window,
 * read by a descendant that is X2 or one of its ancestors), those read
 * by X itself (atx), the ancestors' numbering in the network (vid, m);
 * the bytes at tau without H into *base, and those of the wanted
 * ancestors that X does not read into *wanted. */
static void mark(Ctx *c, int X, int64_t *base, double *wanted)
{
    const Graph *g = c->g;
    size_t n = (size_t)g->n;
    memset(c->anc, 0, n);
    memset(c->desc, 0, n);
    memset(c->want, 0, n);
    memset(c->atx, 0, n);
    ancestors(c, X, c->anc);
    c->desc[X] = 1;
    for (int i = 0; i < c->nx; i++) {
        int v = c->order[i];
        for (int k = g->in_off[v]; k < g->in_off[v + 1] && !c->desc[v]; k++)
            c->desc[v] = c->desc[g->in_idx[k]];
    }
    *base = g->input_bytes + g->nodes[X].size + g->nodes[X].workspace;
    for (int k = g->in_off[X]; k < g->in_off[X + 1]; k++) {
        int u = g->in_idx[k];
        if (c->anc[u]) {
            c->atx[u] = 1;
            *base += g->nodes[u].size;
        }
    }
    *wanted = 0;
    for (int v = 0; v < g->n; v++) {
        /* in a window only what runs inside it reads: outputs are held
         * to the end, which lies past it */
        if (!c->win && in_net(c, v) && g->is_output[v])
            c->want[v] = 1;
        if (v == X || !c->desc[v] || !c->need[v] || (c->win && !c->anc2[v] && v != c->x2))
            continue;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (in_net(c, g->in_idx[k]))
                c->want[g->in_idx[k]] = 1;
    }
    c->m = 0;
    for (int v = 0; v < g->n; v++) {
        if (c->want[v] && c->anc[v] && !c->atx[v])
            *wanted += (double)g->nodes[v].size;
        c->vid[v] = in_net(c, v) ? c->m++ : -1;
    }
}

/* min over (H, R) of cost(R) + lambda bytes(H), scaled, for the marked X:
 * the flow's value into the return, the held bytes of the cut (the slope)
 * into *held. Vertices: 2i "u available after tau", 2i+1 "u made again". */
static double closure(Ctx *c, double lambda, double cap, double *held)
{
    const Graph *g = c->g;
    int S = 2 * c->m, T = 2 * c->m + 1;
    MaxFlow *f = maxflow_new(2 * c->m + 2);
    double neg = 0;
    for (int v = 0; v < g->n; v++) {
        int a = c->vid[v];
        if (a < 0)
            continue;
        int av = 2 * a, rv = 2 * a + 1;
        /* made after tau: a rerun of an ancestor, an incomparable node's
         * first run (nothing extra) */
        double s = (double)g->nodes[v].size / c->sscale, wa = c->atx[v] ? 0 : lambda * s;
        double wr = (c->anc[v] ? g->nodes[v].cost / c->cscale : 0) - wa;
        if (c->want[v] || c->atx[v])
            maxflow_edge(f, S, av, MAXFLOW_INF);
        if (wa > 0)
            maxflow_edge(f, av, T, wa);
        if (c->atx[v]) {
            maxflow_edge(f, rv, T, MAXFLOW_INF);    /* read at tau: held, never made again */
        } else if (wr > 0) {
            maxflow_edge(f, rv, T, wr);
        } else if (wr < 0) {
            neg += wr;
            maxflow_edge(f, S, rv, -wr);
        }
        maxflow_edge(f, rv, av, MAXFLOW_INF);
        /* a value larger than all the room at tau is never held across
         * it: there, available means made after tau. The Lagrangian alone
         * would hold it in part, paying only for the bytes over the room
         * (a 294 MiB gradient 19 MiB over it counted a fifteenth of the
         * backward pass it takes to make it again) */
        if (!c->atx[v] && s > cap)
            maxflow_edge(f, av, rv, MAXFLOW_INF);
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (c->vid[g->in_idx[k]] >= 0)
                maxflow_edge(f, rv, 2 * c->vid[g->in_idx[k]], MAXFLOW_INF);
    }
    double flow = maxflow_run(f, S, T);
    *held = 0;
    for (int v = 0; v < g->n; v++) {
        int a = c->vid[v];
        if (a >= 0 && !c->atx[v] && maxflow_source_side(f, 2 * a) && !maxflow_source_side(f, 2 * a + 1))
            *held += (double)g->nodes[v].size / c->sscale;
    }
    maxflow_free(f);
    return neg + flow;
}

/* The best bound at X over lambda (scaled cost units), 0 when none. */
static double at_x(Ctx *c, double cap, double end, Progress *p)
{
    double lo = -40, hi = 40, best = 0;
    for (int it = 0; it < LAMBDA_STEPS && clock_now() < end && !progress_cancelled(p); it++) {
        double mid = (lo + hi) / 2, lambda = ldexp(1.0, (int)floor(mid)) * exp2(mid - floor(mid)), held;
        double v = closure(c, lambda, cap, &held) - lambda * cap;
        if (v > best)
            best = v;
        /* the slope at lambda is held - cap: more held than fits wants a
         * dearer byte */
        if (held > cap)
            lo = mid;
        else
            hi = mid;
    }
    return best;
}

/* Running nodes past which no bound is tried: the pass that ranks the X
 * walks the graph once per node (0.35 s on llama_8k's 8,344 nodes). */
#define ANY_MAX_NODES 20000

typedef struct {
    double over;    /* bytes that must go at tau (wanted + base - budget) */
    int x;
} Pressure;

static int more_over(const void *a, const void *b)
{
    const Pressure *x = a, *y = b;
    return x->over > y->over ? -1 : x->over < y->over ? 1 : x->x - y->x;
}

/* Two points: X1 and a descendant X2 of it, first run at tau1 < tau2.
 * The runs of X1's ancestors strictly between the two (reruns all) and
 * those of X2's ancestors after tau2 (reruns all) are different runs, so
 * their least costs add up: the second is X2's bound alone; the first is
 * X1's bound with only what runs inside the window wanted (the nodes that
 * descend from X1 and lead to X2, and X2: their first runs lie between),
 * each made there (a rerun, or an incomparable node's run) from what was
 * held across tau1 or made there too. One point sees only its own step:
 * where the budget is tightest early in the backward pass and again late
 * in it (a ResNet's stem, whose shortcut gradient cannot be held across
 * the main branch's batch norm), the reruns each forces are counted both.
 * Tries the MOST_X1 best single points as X1, each with up to MOST_X2 of
 * its descendants as X2, one from each stretch of the order after it
 * (val[0..np): the single bounds of pr, those of the first `done` tried;
 * an X2 not tried yet gets its own then), the first pair always (the best
 * X1 and the latest X2: regnet_y_400mf's pair) and the rest while time is
 * left; best: the single points' best, returned raised to the best sum
 * (*node: its X2). */
#define MOST_X1 3
#define MOST_X2 8

typedef struct {
    double v;
    int i;
} Ranked;

static int more_value(const void *a, const void *b)
{
    const Ranked *x = a, *y = b;
    return x->v > y->v ? -1 : x->v < y->v ? 1 : x->i - y->i;
}

static double two_points(Ctx *c, int64_t budget, const Pressure *pr, double *val, int done, int np, double best,
                         double end, Progress *p, int *node)
{
    const Graph *g = c->g;
    int n = done;
    /* the points tried, best first (their values do not change below) */
    Ranked *rk = xmallocarray((size_t)n + 1, sizeof *rk);
    for (int i = 0; i < n; i++)
        rk[i] = (Ranked){val[i], i};
    qsort(rk, (size_t)n, sizeof *rk, more_value);
    int tried = 0;  /* pairs tried: the first always, as the first single X */
    for (int a = 0; a < n && a < MOST_X1 && rk[a].v > 0; a++) {
        int X1 = pr[rk[a].i].x, x2s[MOST_X2], n2 = 0;
        int64_t base;
        double wanted;
        mark(c, X1, &base, &wanted);
        /* X2 spread over the order after X1: in each of MOST_X2 stretches
         * the best single point tried, else, of those not tried yet, the
         * one that leaves least room at its step (an X2 just after X1
         * leaves a window with little in it; a late one, little after it) */
        int best_in[MOST_X2];
        int64_t room[MOST_X2];
        for (int k = 0; k < MOST_X2; k++)
            best_in[k] = -1;
        int span = c->nx - c->pos[X1] - 1;
        span = span > 0 ? span : 1;
        for (int b = 0; b < np; b++) {
            int j = b < n ? rk[b].i : b;
            int x = pr[j].x;
            if ((j < done && val[j] <= 0) || !c->desc[x] || x == X1)
                continue;
            int k = (int)((int64_t)(c->pos[x] - c->pos[X1] - 1) * MOST_X2 / span);
            /* regnet_y_400mf's: the stem's batch-norm backward */
            int64_t r = budget - base_of(c, x);
            if (best_in[k] < 0 || (j >= done && best_in[k] >= done && r < room[k])) {
                best_in[k] = j;
                room[k] = r;
            }
        }
        for (int k = MOST_X2 - 1; k >= 0; k--)
            if (best_in[k] >= 0)
                x2s[n2++] = best_in[k];
        for (int b = 0; b < n2 && (tried == 0 || clock_now() < end) && !progress_cancelled(p); b++, tried++) {
            int j = x2s[b], X2 = pr[j].x;
            double until = tried == 0 ? INFINITY : end;
            if (j >= done) {    /* X2's own bound, not tried yet */
                mark(c, X2, &base, &wanted);
                val[j] = at_x(c, (double)(budget - base) / c->sscale, until, p);
            }
            /* X2's ancestors: the window's end */
            memset(c->anc2, 0, (size_t)g->n);
            ancestors(c, X2, c->anc2);
            c->win = 1;
            c->x2 = X2;
            mark(c, X1, &base, &wanted);
            double v = at_x(c, (double)(budget - base) / c->sscale, until, p) + val[j];
            c->win = 0;
            if (v > best) {
                best = v;
                if (node)
                    *node = X2;
            }
        }
    }
    free(rk);
    return best;
}

int bound_any_cost(const Graph *g, int64_t budget, double seconds, Progress *p, double *lb, int *node, int *whole,
                   Err *e)
{
    double end = clock_now() + seconds;
    Ctx c = {.g = g};
    size_t n = (size_t)g->n;
    *lb = -1;
    if (whole)
        *whole = 0;
    if (node)
        *node = -1;
    if (graph_running_nodes(g) > ANY_MAX_NODES)
        return err_set(e, ERR_LIMIT, "no bound over every order on %d running nodes (at most %d)",
                       graph_running_nodes(g), ANY_MAX_NODES);
    c.order = sim_baseline_order(g, &c.nx);
    c.pos = xmallocarray(n + 1, sizeof *c.pos);
    for (int i = 0; i < c.nx; i++)
        c.pos[c.order[i]] = i;
    c.need = xcalloc(n + 1, 1);
    c.anc = xcalloc(n + 1, 1);
    c.desc = xcalloc(n + 1, 1);
    c.want = xcalloc(n + 1, 1);
    c.atx = xcalloc(n + 1, 1);
    c.anc2 = xcalloc(n + 1, 1);
    c.vid = xmallocarray(n + 1, sizeof *c.vid);
    graph_mark_needed(g, c.need);
    double req = 0, cmax = 0;
    int64_t smax = 1;
    int integral = 1;   /* every cost a whole number (unit costs, FLOP counts) */
    for (int i = 0; i < c.nx; i++) {
        const Node *v = &g->nodes[c.order[i]];
        if (c.need[c.order[i]])
            req += v->cost;
        integral = integral && v->cost == floor(v->cost) && v->cost < 0x1p52;
        cmax = v->cost > cmax ? v->cost : cmax;
        smax = v->size > smax ? v->size : smax;
    }
    c.cscale = cmax > 0 ? cmax : 1;
    c.sscale = (double)smax;
    *lb = req;
    if (node)
        *node = -1;
    int rc = ERR_OK;
    /* where the bytes wanted after tau run furthest over: most must go */
    Pressure *pr = xmallocarray((size_t)c.nx + 1, sizeof *pr);
    int np = 0;
    for (int i = 0; i < c.nx && rc == ERR_OK; i++) {
        int X = c.order[i];
        if (!c.need[X])
            continue;
        if ((i & 63) == 0 && progress_cancelled(p))
            rc = err_set(e, ERR_CANCELLED, "bound: cancelled");
        int64_t base;
        double wanted;
        mark(&c, X, &base, &wanted);
        if (base > budget)
            rc = err_set(e, ERR_OVER_BUDGET,
                         "no schedule fits budget %lld: running '%s' alone needs %lld bytes", (long long)budget,
                         g->nodes[X].id, (long long)base);
        else if (wanted + (double)base > (double)budget)
            pr[np++] = (Pressure){wanted + (double)base - (double)budget, X};
    }
    qsort(pr, (size_t)np, sizeof *pr, more_over);
    /* the first X always (its lambda search whole: a few dozen cuts),
     * the rest while time is left */
    double best = 0, *val = xcalloc((size_t)np + 1, sizeof *val);
    int i = 0;
    /* half the time for single points (the first always), the rest for
     * pairs of them */
    double mid = clock_now() + (end - clock_now()) / 2;
    for (; i < np && rc == ERR_OK && (i == 0 || clock_now() < mid); i++) {
        if (progress_cancelled(p)) {
            rc = err_set(e, ERR_CANCELLED, "bound: cancelled");
            break;
        }
        int64_t base;
        double wanted;
        mark(&c, pr[i].x, &base, &wanted);
        double v = at_x(&c, (double)(budget - base) / c.sscale, i == 0 ? INFINITY : end, p);
        val[i] = v;
        if (v > best) {
            best = v;
            if (node)
                *node = pr[i].x;
        }
    }
    int all = i == np;
    if (rc == ERR_OK) {
        best = two_points(&c, budget, pr, val, i, np, best, end, p, node);
        if (progress_cancelled(p))
            rc = err_set(e, ERR_CANCELLED, "bound: cancelled");
    }
    if (whole)
        *whole = rc == ERR_OK && all && clock_now() < end;
    free(val);
    /* rounding in the flow, on the safe side; with whole costs every
     * schedule's extra cost is whole too, so the bound rounds up (the
     * Lagrangian holds values in part: a 4-byte value with 3 bytes free
     * counts a quarter of its rerun) */
    if (rc == ERR_OK) {
        double extra = best * c.cscale * (1 - 1e-9);
        if (integral && req + extra < 0x1p52)
            extra = ceil(extra - 1e-6 * fmax(1, extra));
        *lb = req + extra;
    }
    free(pr);
    free(c.order);
    free(c.need);
    free(c.anc);
    free(c.desc);
    free(c.want);
    free(c.atx);
    free(c.anc2);
    free(c.pos);
    free(c.vid);
    return rc;
}
