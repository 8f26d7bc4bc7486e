/* revolve.c — Revolve checkpointing (Griewank & Walther; Beaumont et al.
 * 2020) on training graphs whose forward part is a chain of stages.
 * Stages are cut where exactly one forward value crosses the forward
 * topological order; the DP Opt0 places checkpoints; the number of slots is
 * searched so the simulated peak meets the budget. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/chain/chain_dp.h"
#include "solvers/chain/revolve.h"
#include "src/graph/pairing.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/base/xalloc.h"

#define LMAX 4096

static long long opt_table(int l, int c, long long *memo, int C)
{
    (void)C;
    return memo[(size_t)c * (LMAX + 1) + (size_t)l];
}

/* Bottom-up table for c' ≤ c, l' ≤ l; split[c][l] is the best first step. */
static void fill(int L, int C, long long *F, int *S)
{
    for (int c = 1; c <= C; c++)
        for (int l = 0; l <= L; l++) {
            size_t i = (size_t)c * (LMAX + 1) + (size_t)l;
            S[i] = 0;
            if (l <= 1) {
                F[i] = l;
                continue;
            }
            if (c == 1) {
                F[i] = (long long)l * (l + 1) / 2;
                S[i] = l - 1;
                continue;
            }
            long long best = -1;
            for (int j = 1; j < l; j++) {
                long long v = j + F[(size_t)(c - 1) * (LMAX + 1) + (size_t)(l - j)] +
                              F[(size_t)c * (LMAX + 1) + (size_t)j];
                if (best < 0 || v < best) {
                    best = v;
                    S[i] = j;
                }
            }
            F[i] = best;
        }
}

long long revolve_opt0(int l, int c)
{
    if (l < 0 || c < 1 || l > LMAX)
        return -1;
    int C = c < l ? c : (l < 1 ? 1 : l);
    long long *F = xcalloc((size_t)(C + 1) * (LMAX + 1), sizeof *F);
    int *S = xcalloc((size_t)(C + 1) * (LMAX + 1), sizeof *S);
    fill(l, C, F, S);
    long long r = opt_table(l, C, F, C);
    free(F);
    free(S);
    return r;
}

typedef struct {
    int L;            /* stages */
    int *stage_of;    /* node -> stage (fwd) or backward stage; -1 input */
    int *order;       /* non-input nodes in topological order */
    int n_order;
    long long *F;     /* Opt0 table, (L+1) x (LMAX+1) */
    int *S;
    int best_c;
    /* heterogeneous model (model=heterogeneous, or auto with unequal stages) */
    int hetero;
    ChainDP dp;
    int64_t bucket;   /* bytes per memory bucket */
    int best_m;       /* buckets of the last chosen plan */
} Revolve;

static void emit_fwd(const Solver *s, int a, int b, Plan *out)
{
    const Revolve *st = s->state;
    for (int i = 0; i < st->n_order; i++) {
        int v = st->order[i];
        if (s->g->nodes[v].phase == PHASE_FWD && st->stage_of[v] >= a && st->stage_of[v] < b)
            plan_push(out, v);
    }
}

static void emit_bwd(const Solver *s, int k, Plan *out)
{
    const Revolve *st = s->state;
    for (int i = 0; i < st->n_order; i++) {
        int v = st->order[i];
        if (s->g->nodes[v].phase != PHASE_FWD && st->stage_of[v] == k)
            plan_push(out, v);
    }
}

/* Reverse stages [a, b) with c slots, the input of stage a held. Iterative
 * over the split chain would be tidier; depth is bounded by c. */
static void rev(const Solver *s, int a, int b, int c, Plan *out)
{
    const Revolve *st = s->state;
    if (c >= b - a) {
        /* a slot per stage: one sweep keeps every value, no recomputation */
        emit_fwd(s, a, b, out);
        for (int k = b - 1; k >= a; k--)
            emit_bwd(s, k, out);
        return;
    }
    while (b - a > 1) {
        int l = b - a;
        int j = st->S[(size_t)c * (LMAX + 1) + (size_t)l];
        if (c == 1) {
            emit_fwd(s, a, b, out);
            emit_bwd(s, b - 1, out);
            b--;
            continue;
        }
        emit_fwd(s, a, a + j, out);
        rev(s, a + j, b, c - 1, out);
        b = a + j;
    }
    if (b - a == 1) {
        emit_fwd(s, a, b, out);
        emit_bwd(s, a, out);
    }
}

static void build(const Solver *s, int c, Plan *out)
{
    const Revolve *st = s->state;
    plan_reset(out);
    rev(s, 0, st->L, c, out);
}

/* Per-stage figures for the heterogeneous DP: forward cost, the size of the
 * value crossing out of the stage (what a checkpoint holds) and the rest of
 * the stage's forward values (its tape). Memory is cut into mem_resolution
 * buckets of ceil(all forward bytes / mem_resolution) bytes each. */
static int hetero_prepare(Solver *s, Err *e)
{
    Revolve *st = s->state;
    const Graph *g = s->g;
    const char *model = solver_opt_str(s, "model");
    long long R;
    if (solver_opt_int(s, "mem_resolution", &R, e))   /* 1..4096, by the option table */
        return e->code;
    int L = st->L;
    double *uf = xcalloc((size_t)L, sizeof *uf);
    int64_t *xb = xcalloc((size_t)L, sizeof *xb), *all = xcalloc((size_t)L, sizeof *all);
    int64_t total = 0;
    for (int i = 0; i < st->n_order; i++) {
        int v = st->order[i];
        if (g->nodes[v].phase != PHASE_FWD)
            continue;
        int k = st->stage_of[v];
        uf[k] += g->nodes[v].cost;
        all[k] += g->nodes[v].size;
        total += g->nodes[v].size;
        for (int q = g->out_off[v]; q < g->out_off[v + 1]; q++) {
            int w = g->out_idx[q];
            if (g->nodes[w].phase == PHASE_FWD && st->stage_of[w] > k) {
                xb[k] += g->nodes[v].size;   /* crosses into a later stage */
                break;
            }
        }
    }
    int differ = 0;
    for (int k = 1; k < L; k++)
        differ |= uf[k] != uf[0] || all[k] != all[0] || (k < L - 1 && xb[k] != xb[0]);
    st->hetero = !strcmp(model, "heterogeneous") || (!strcmp(model, "auto") && differ);
    int rc = ERR_OK;
    if (st->hetero) {
        if ((double)L * L * L * (double)R > 4e9) {
            rc = err_set(e, ERR_UNSUPPORTED,
                         "revolve: %d stages x %lld buckets is too large for the heterogeneous "
                         "DP; lower mem_resolution or use model=homogeneous", L, R);
        } else {
            st->bucket = total / R + (total % R != 0);
            if (st->bucket < 1)
                st->bucket = 1;
            int *x = xcalloc((size_t)L, sizeof *x), *tp = xcalloc((size_t)L, sizeof *tp);
            for (int k = 0; k < L; k++) {
                x[k] = (int)((xb[k] + st->bucket - 1) / st->bucket);
                int64_t rest = all[k] - xb[k];
                tp[k] = (int)((rest + st->bucket - 1) / st->bucket);
            }
            rc = chaindp_build(&st->dp, L, (int)R, uf, x, tp, 1, NULL, e);
            free(x);
            free(tp);
        }
    }
    free(uf);
    free(xb);
    free(all);
    return rc;
}

typedef struct {
    const Solver *s;
    Plan *out;
} Emit;

static void emit_fwd(const Solver *s, int a, int b, Plan *out);
static void emit_bwd(const Solver *s, int k, Plan *out);

static void hetero_emit(void *ctx, int stage, int bwd)
{
    Emit *em = ctx;
    if (bwd)
        emit_bwd(em->s, stage, em->out);
    else
        emit_fwd(em->s, stage, stage + 1, em->out);
}

/* A candidate's schedule again from its tag (slot count, or bucket count
 * with the heterogeneous model): cheaper than keeping every schedule. */
static int rebuild(void *ctx, const Cand *c, Plan *out, Progress *p, Err *e)
{
    (void)p;
    (void)e;
    const Solver *s = ctx;
    const Revolve *st = s->state;
    plan_reset(out);
    if (st->hetero) {
        Emit em = {s, out};
        chaindp_walk(&st->dp, 0, st->L, c->tag, hetero_emit, &em);
    } else {
        build(s, c->tag, out);
    }
    return ERR_OK;
}

/* The candidates, simulated once: every slot count 1..L (homogeneous), or
 * every bucket count whose DP value is finite and new (heterogeneous; the
 * same value is the same strategy). */
static int fill_cands(Solver *s, Progress *p, Err *e)
{
    Revolve *st = s->state;
    s->cands.rebuild = rebuild;
    s->cands.ctx = s;
    int n = st->hetero ? st->dp.R + 1 : st->L, nt = 0;
    int *tags = xmallocarray((size_t)n + 1, sizeof *tags);
    double prev = -1;
    for (int i = 0; i < n; i++) {
        if (st->hetero) {
            double h = chaindp_cost(&st->dp, 0, st->L, i);
            if (h >= CHAIN_DP_INF || h == prev)
                continue;
            prev = h;
        }
        tags[nt++] = st->hetero ? i : i + 1;
    }
    int rc = cands_add_family(&s->cands, s->g, tags, nt, "revolve", p, e);
    free(tags);
    return rc;
}

/* Made once, the candidates make every budget a pick: the cheapest whose
 * simulated peak fits, else the lowest peak (src/plan/cands.h). */
static int revolve_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    Revolve *st = s->state;
    int rc;
    if (!s->cands.n && (rc = fill_cands(s, p, e)))
        return rc;
    int i = cands_pick(&s->cands, budget);
    if (st->hetero)
        st->best_m = s->cands.c[i].tag;
    else
        st->best_c = s->cands.c[i].tag;
    return cands_emit(&s->cands, i, out, p, e);
}

static int revolve_prepare(Solver *s, Err *e)
{
    const Graph *g = s->g;
    int n = g->n;
    if (pairing_require(g, "revolve", e))
        return e->code;
    Revolve *st = s->state;
    st->stage_of = xmallocarray((size_t)n, sizeof *st->stage_of);
    st->order = xmallocarray((size_t)n, sizeof *st->order);
    int *left = xcalloc((size_t)n, sizeof *left);
    unsigned char *seen = xcalloc((size_t)n, 1);
    int crossing = 0, stage = 0;
    for (int t = 0; t < n; t++) {
        int v = g->topo[t];
        st->stage_of[v] = -1;
        if (g->nodes[v].phase == PHASE_INPUT)
            continue;
        st->order[st->n_order++] = v;
        if (g->nodes[v].phase != PHASE_FWD)
            continue;
        st->stage_of[v] = stage;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int u = g->in_idx[k];
            if (g->nodes[u].phase == PHASE_INPUT && !seen[u]) {
                /* an input crosses from its first reader to its last */
                seen[u] = 1;
                for (int q = g->out_off[u]; q < g->out_off[u + 1]; q++)
                    if (g->nodes[g->out_idx[q]].phase == PHASE_FWD)
                        left[u]++;
                crossing++;
            }
            if ((g->nodes[u].phase == PHASE_FWD || g->nodes[u].phase == PHASE_INPUT) &&
                --left[u] == 0)
                crossing--;
        }
        for (int k = g->out_off[v]; k < g->out_off[v + 1]; k++)
            if (g->nodes[g->out_idx[k]].phase == PHASE_FWD)
                left[v]++;
        if (left[v])
            crossing++;
        if (crossing == 1)
            stage++;   /* a single value crosses: a stage boundary */
    }
    /* the last forward node closes the final stage */
    int L = stage;
    for (int v = 0; v < n; v++)
        if (st->stage_of[v] >= L && g->nodes[v].phase == PHASE_FWD)
            L = st->stage_of[v] + 1;
    free(left);
    free(seen);
    if (L < 2)
        return err_set(e, ERR_UNSUPPORTED,
                       "revolve: forward part is not a chain of stages "
                       "(no point where a single value separates the forward graph)");
    /* Backward stage: that of the paired forward node (grad_of, or
     * src/graph/pairing.h's inference); a node reading backward values of
     * several stages runs with the earliest-reversed (lowest) of them. */
    for (int i = 0; i < st->n_order; i++) {
        int v = st->order[i];
        if (g->nodes[v].phase == PHASE_FWD)
            continue;
        int sg = L - 1;
        if (g->nodes[v].pair >= 0 && g->nodes[g->nodes[v].pair].phase == PHASE_FWD)
            sg = st->stage_of[g->nodes[v].pair];
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int u = g->in_idx[k];
            if (g->nodes[u].phase != PHASE_FWD && g->nodes[u].phase != PHASE_INPUT &&
                st->stage_of[u] < sg)
                sg = st->stage_of[u];
        }
        st->stage_of[v] = sg;
    }
    st->L = L;
    int C = L;
    st->F = xcalloc((size_t)(C + 1) * (LMAX + 1), sizeof *st->F);
    st->S = xcalloc((size_t)(C + 1) * (LMAX + 1), sizeof *st->S);
    if (L > LMAX)
        return err_set(e, ERR_UNSUPPORTED, "revolve: %d stages, more than %d", L, LMAX);
    fill(L, C, st->F, st->S);
    return hetero_prepare(s, e);
}

/* One OVERLAY_SEGMENT group per stage (its forward nodes); the size shown
 * is the stage's last forward value, the one a checkpoint holds. */
static void revolve_describe(const Solver *s, Overlay *out)
{
    const Revolve *st = s->state;
    const Graph *g = s->g;
    char buf[128];
    if (st->hetero)
        overlay_set_titlef(out, "revolve (heterogeneous): %d stages, %d of %d buckets of %lld B",
                           st->L, st->best_m, st->dp.R, (long long)st->bucket);
    else
        overlay_set_titlef(out, "revolve: %d stages, %d slots", st->L, st->best_c);
    for (int k = 0; k < st->L; k++) {
        int cnt = 0, last = -1;
        for (int i = 0; i < st->n_order; i++) {
            int v = st->order[i];
            if (g->nodes[v].phase == PHASE_FWD && st->stage_of[v] == k) {
                cnt++;
                last = v;
            }
        }
        double mib = last >= 0 ? (double)g->nodes[last].size / (1024.0 * 1024.0) : 0;
        snprintf(buf, sizeof buf, "stage %d: %d nodes, %.3g MiB", k + 1, cnt, mib);
        int gi = overlay_add(out, OVERLAY_SEGMENT, buf, -1, 0);
        for (int i = 0; i < st->n_order; i++) {
            int v = st->order[i];
            if (g->nodes[v].phase == PHASE_FWD && st->stage_of[v] == k)
                overlay_add_node(out, gi, v);
        }
    }
}

static void revolve_release(Solver *s)
{
    Revolve *st = s->state;
    free(st->stage_of);
    free(st->order);
    free(st->F);
    free(st->S);
    chaindp_free(&st->dp);
}

static const SolverParam params[] = {
    OPT_P_CHOICE("model", "auto", "auto|homogeneous|heterogeneous",
                 "homogeneous (Opt0 on slots), heterogeneous (DP over per-stage costs and sizes with "
                 "discretised memory) or auto (heterogeneous when stages differ)"),
    OPT_P_INT("mem_resolution", "64", 1, 4096, NULL,
              "memory buckets of the heterogeneous DP (all forward bytes / this)"),
    OPT_P_END};

const SolverClass solver_revolve = {
    .name = "revolve",
    .title = "Revolve: optimal checkpoint placement on a chain of stages (Opt0 DP)",
    .params = params,
    .state_size = sizeof(Revolve),
    .prepare = revolve_prepare,
    .solve = revolve_solve,
    .describe = revolve_describe,
    .release = revolve_release,
};
