/* kusumoto.c — the solvers kusumoto-exact and kusumoto-approx: Kusumoto et
 * al. 2019's DP over lower sets of the forward part, emitted as the
 * canonical strategy (kusumoto_emit.c) and judged by the simulator.
 *
 * The DP's memory model (kusumoto.h) is not the spec's, so a user budget is
 * never handed to it directly. The first solve walks the DP's Pareto front
 * of (overhead, model peak) from the largest model budget down: each run at
 * model budget B gives the cheapest chain, whose model peak p is ≤ B, and
 * the next run asks for less than p (or a fixed step less, so at most
 * front_max runs). The other chains each run keeps at F (its Pareto labels)
 * are candidates as well: the simulator often ranks them above the model's
 * favourite. The smallest feasible model budget is found first by
 * bisection on a feasibility-only DP; there the chain of most overhead is
 * added too (the paper's memory-centric strategy). Every chain found is
 * simulated once; those figures do not depend on the user's budget, so a
 * later budget is a lookup over them: the cheapest chain whose simulated
 * peak fits (time-centric) or the lowest simulated peak (memory-centric).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/kusumoto/kusumoto.h"
#include "src/graph/pairing.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/base/xalloc.h"

typedef struct {
    const KusFamily *fam;   /* the family the chain's set indices refer to */
    int *chain;
    int k;
    int tb;             /* model overhead, buckets */
    int64_t dp_peak;    /* model peak */
    int64_t peak;       /* simulated */
    double cost;
} KusCand;

typedef struct {
    KusFamily *f;
    /* exact only: the pruned family too. Its chains are chains of the full
     * family, but the DP's model is not the simulator, so the front walk
     * over the full family can miss a chain the pruned walk finds; keeping
     * both sets of candidates makes exact never worse than approx. */
    KusFamily *f2;
    int approx;
    int memory;         /* strategy=memory */
    double unit;        /* cost bucket */
    long front_max;
    KusCand *cand;
    int ncand, capc;
    int have_front;
    int last;           /* candidate of the last solve, for describe */
} Kus;

static const char *cls_name(const Solver *s)
{
    return s->cls->name;
}

static int kus_prepare(Solver *s, Err *e)
{
    const Graph *g = s->g;
    int nf = 0;
    for (int v = 0; v < g->n; v++)
        nf += g->nodes[v].phase == PHASE_FWD;
    if (!nf)
        return err_set(e, ERR_UNSUPPORTED, "%s: the graph has no forward (phase fwd) nodes",
                       cls_name(s));
    if (pairing_require(g, cls_name(s), e))
        return e->code;
    for (int v = 0; v < g->n; v++) {
        if (g->nodes[v].phase != PHASE_FWD)
            continue;
        for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++) {
            int u = g->in_idx[q];
            Phase ph = g->nodes[u].phase;
            if (ph != PHASE_FWD && ph != PHASE_INPUT)
                return err_set(e, ERR_UNSUPPORTED,
                               "%s: forward node '%s' reads the %s node '%s'; the forward part "
                               "must depend only on inputs and forward nodes",
                               cls_name(s), g->nodes[v].id, phase_name(ph), g->nodes[u].id);
        }
    }
    Kus *st = s->state;
    st->approx = strcmp(cls_name(s), "kusumoto-approx") == 0;
    if (solver_opt_choice(s, "strategy", &st->memory, e))   /* time|memory */
        return e->code;
    /* the option table keeps these in range: 1..100000, and at least 1 */
    long long res = 0, fm = 0, maxsets = 0;
    if (solver_opt_int(s, "resolution", &res, e) || solver_opt_int(s, "front_max", &fm, e) ||
        (!st->approx && solver_opt_int(s, "max_lower_sets", &maxsets, e)))
        return e->code;
    st->front_max = (long)fm;
    /* the exact DP's family, and the approximation's for its fallback;
     * on failure kus_release frees whichever was made */
    st->f = kus_family_new(g, st->approx, (long)maxsets, e);
    if (!st->f || (!st->approx && !(st->f2 = kus_family_new(g, 1, 0, e))))
        return e->code;
    double total = st->f->C[st->f->N - 1];
    st->unit = total > 0 ? total / (double)res : 1;
    st->last = -1;
    return ERR_OK;
}

/* A candidate's schedule from its chain (tag: index into Kus.cand). */
static int rebuild(void *ctx, const Cand *c, Plan *out, Progress *p, Err *e)
{
    (void)p;
    (void)e;
    const Solver *s = ctx;
    const KusCand *x = &((const Kus *)s->state)->cand[c->tag];
    kus_emit(s->g, x->fam, x->chain, x->k, out, NULL);
    return ERR_OK;
}

/* Simulate a chain's canonical strategy once and keep it twice over: its
 * model figures here (describe, the front walk), its simulated figures in
 * the solver's candidate set, where budgets pick from. */
static void add_cand(Solver *s, const KusFamily *f, int *chain, int k, Err *e)
{
    Kus *st = s->state;
    for (int c = 0; c < st->ncand; c++)
        if (st->cand[c].fam == f && st->cand[c].k == k &&
            !memcmp(st->cand[c].chain, chain, (size_t)k * sizeof *chain)) {
            free(chain);
            return;
        }
    KusCand cd = {.fam = f, .chain = chain, .k = k};
    kus_chain_model(f, chain, k, st->unit, &cd.tb, &cd.dp_peak);
    Plan pl;
    plan_init(&pl);
    kus_emit(s->g, f, chain, k, &pl, NULL);
    Sim sim;
    if (sim_run(s->g, pl.steps, pl.T, &sim, e) == ERR_OK) {
        cd.peak = sim.peak;
        cd.cost = sim.cost;
        sim_done(&sim);
        xgrow((void **)&st->cand, &st->capc, st->ncand + 1, sizeof *st->cand);
        s->cands.rebuild = rebuild;
        s->cands.ctx = s;
        cands_add(&s->cands, NULL, pl.T, cd.peak, cd.cost, st->ncand, NULL, cls_name(s));
        st->cand[st->ncand++] = cd;
    } else {
        free(chain);   /* cannot happen for a canonical strategy; e says why */
    }
    plan_done(&pl);
}

static void drop_front(Solver *s)
{
    Kus *st = s->state;
    for (int c = 0; c < st->ncand; c++)
        free(st->cand[c].chain);
    st->ncand = 0;
    st->have_front = 0;
    cands_clear(&s->cands);
}

static int cancelled(Solver *s, Err *e)
{
    drop_front(s);
    return err_set(e, ERR_CANCELLED, "%s: cancelled", cls_name(s));
}

/* Chains taken from one DP run (its Pareto labels at F). */
#define FRONT_LABELS 32

static int build_front(Solver *s, const KusFamily *f, Progress *p, Err *e)
{
    Kus *st = s->state;
    int F = f->N - 1;
    int64_t hi = bytes_add(bytes_add(f->S[F], f->S[F]), f->A[F]), lo = -1; /* {F} alone always fits hi */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        int r = kus_dp(f, mid, st->unit, KUS_FEASIBLE, NULL, p);
        if (r < 0)
            return cancelled(s, e);
        if (r > 0)
            hi = mid;
        else
            lo = mid;
    }
    int64_t bmin = hi, B = bytes_add(bytes_add(f->S[F], f->S[F]), f->A[F]);
    int64_t step = (B - bmin) / st->front_max;
    Err se;
    err_clear(&se);
    int *chains[FRONT_LABELS], ks[FRONT_LABELS];
    for (long run = 0;; run++) {
        progress_set(p, 0.1 + 0.9 * (double)run / (double)(st->front_max + 2));
        /* every chain the table keeps at F: the model ranks them by
         * overhead and cache, the simulator may rank them otherwise */
        int got = kus_dp_front(f, B, st->unit, FRONT_LABELS, chains, ks, p);
        if (got < 0)
            return cancelled(s, e);
        if (got == 0)
            break;   /* cannot happen at or above bmin */
        int tb;
        int64_t pk;
        kus_chain_model(f, chains[0], ks[0], st->unit, &tb, &pk);
        for (int q = 0; q < got; q++)
            add_cand(s, f, chains[q], ks[q], &se);
        if (B <= bmin)
            break;
        int64_t nb = pk - 1;
        if (B - step < nb)
            nb = B - step;
        if (nb >= B)
            nb = B - 1;   /* always progress, even were pk above B */
        B = nb < bmin ? bmin : nb;
    }
    int *chain = NULL;
    int k = kus_dp(f, bmin, st->unit, KUS_MAX_T, &chain, p);
    if (k < 0)
        return cancelled(s, e);
    if (k > 0)
        add_cand(s, f, chain, k, &se);
    if (!st->ncand)
        return err_set(e, se.code ? se.code : ERR_INVALID, "%s: no schedule: %s", cls_name(s),
                       se.code ? se.msg : "the DP found no chain");
    st->have_front = 1;
    return ERR_OK;
}

static int kus_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    Kus *st = s->state;
    if (!st->have_front) {
        int rc = build_front(s, st->f, p, e);
        if (!rc && st->f2)
            rc = build_front(s, st->f2, p, e);
        if (rc)
            return rc;
    }
    /* time: the one pick rule; memory: the lowest peak whatever the budget */
    int best = st->memory ? cands_pick_lowest(&s->cands) : cands_pick(&s->cands, budget);
    best = s->cands.c[best].tag;
    st->last = best;
    kus_emit(s->g, st->cand[best].fam, st->cand[best].chain, st->cand[best].k, out, NULL);
    progress_set(p, 1);
    return ERR_OK;
}

static void kus_describe(const Solver *s, Overlay *out)
{
    const Kus *st = s->state;
    if (st->last < 0)
        return;
    const KusCand *c = &st->cand[st->last];
    int *blk = xmallocarray((size_t)s->g->n, sizeof *blk);
    Plan tmp;
    plan_init(&tmp);
    const KusFamily *f = c->fam;
    kus_emit(s->g, f, c->chain, c->k, &tmp, blk);
    plan_done(&tmp);
    overlay_set_titlef(out, "lower sets (k=%d)", c->k);
    char buf[64];
    for (int i = 1; i <= c->k; i++) {
        snprintf(buf, sizeof buf, "V_%d", i);
        int gi = overlay_add(out, OVERLAY_BLOCK, buf, -1, 0);
        for (int x = 0; x < f->nf; x++)
            if (blk[f->fwd[x]] == i)
                overlay_add_node(out, gi, f->fwd[x]);
    }
    /* what the forward keeps after each block: the boundary ∂(L_i), the
     * values of L_i read outside it (the explorer shows the cache beside
     * the blocks; L_k is everything, so its boundary is not a cache) */
    for (int i = 1; i < c->k; i++) {
        int L = c->chain[i - 1];
        snprintf(buf, sizeof buf, "cache after V_%d", i);
        int gi = overlay_add(out, OVERLAY_OTHER, buf, -1, 0);
        for (int q = f->bd_off[L]; q < f->bd_off[L + 1]; q++)
            overlay_add_node(out, gi, f->fwd[f->bd[q]]);
    }
    free(blk);
}

static void kus_release(Solver *s)
{
    Kus *st = s->state;
    drop_front(s);
    free(st->cand);
    kus_family_free(st->f);
    kus_family_free(st->f2);
}

#define COMMON_PARAMS \
    OPT_P_CHOICE("strategy", "time", "time|memory", \
                 "time: least overhead whose simulated peak meets the budget; memory: lowest peak"), \
    OPT_P_INT("resolution", "64", 1, 100000, NULL, "overhead buckets per total forward cost in the DP table"), \
    OPT_P_INT("front_max", "64", 1, 100000, NULL, "most DP runs when walking the (overhead, peak) front")

static const SolverParam params_exact[] = {
    COMMON_PARAMS,
    OPT_P_INT("max_lower_sets", "10000", 1, 1e12, NULL, "refuse graphs whose forward part has more lower sets"),
    OPT_P_END,
};

static const SolverParam params_approx[] = {
    COMMON_PARAMS,
    OPT_P_END,
};

const SolverClass solver_kusumoto_exact = {
    .name = "kusumoto-exact",
    .title = "Kusumoto et al.: DP over all lower sets of the forward part (canonical strategy)",
    .params = params_exact,
    .state_size = sizeof(Kus),
    .prepare = kus_prepare,
    .solve = kus_solve,
    .describe = kus_describe,
    .release = kus_release,
};

const SolverClass solver_kusumoto_approx = {
    .name = "kusumoto-approx",
    .title = "Kusumoto et al.: DP over ancestor sets of single nodes (fast approximation)",
    .params = params_approx,
    .state_size = sizeof(Kus),
    .prepare = kus_prepare,
    .solve = kus_solve,
    .describe = kus_describe,
    .release = kus_release,
};
