/* join.c — Beaumont et al. 2020's checkpointing for join graphs: k chains
 * of stages (the branches) meeting at a join node, then the loss. The
 * branches are found by removing the join and its descendants (the "turn")
 * and taking the connected components of the forward part; each branch is
 * cut into stages where one value crosses (as revolve does). join_dp.c
 * gives the canonical strategy (which branch to advance, how far, and how
 * many slots each reversal gets); the slot count is searched so the
 * simulated peak meets the budget. join_hetero.c adds per-branch schedules
 * from the heterogeneous chain DP (real stage sizes and costs), branches
 * reversed one after the other; every candidate is simulated and the
 * cheapest that fits wins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/chain/join_dp.h"
#include "solvers/chain/join_hetero.h"
#include "src/graph/pairing.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/base/xalloc.h"

#define JOIN_MAX_FWD 8192
#define JOIN_MAX_CELLS 20000000L
/* heterogeneous candidates simulated per solve: about 2e7 simulated steps
 * (a schedule is a few times the node count), 256..20000 candidates */
#define JOIN_HET_STEPS 2e7

typedef struct {
    int *v, n, cap;
} List;

static void list_push(List *l, int v)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->v = xreallocarray(l->v, (size_t)l->cap, sizeof *l->v);
    }
    l->v[l->n++] = v;
}

typedef struct {
    int k;
    int len[JOIN_KMAX];
    int first[JOIN_KMAX];   /* group index of branch b's stage 0 */
    int n_groups;           /* sum of len */
    List *fwd, *bwd;        /* per group, topological order */
    List tail_fwd, tail_bwd, final;
    int join_node;
    JoinDP dp;
    int cmin, best_c;       /* best_c = 0: the plain sweep was kept */
    int strategy;           /* 0 optimal, 1 naive, 2 min-memory */
    int best_kind;          /* 0 DP, 1 naive, 2 sweep, 3 heterogeneous */
    int model;              /* 0 homogeneous only, 1 both, 2 heterogeneous only */
    JoinHetero jh;          /* per-branch chain DPs (model != 0) */
    const Graph *g;
    JhCand *cands;
    int n_cands, best_het;  /* best_het: index into cands of the last plan's */
} Join;

static void emit_list(const List *l, Plan *out)
{
    for (int i = 0; i < l->n; i++)
        plan_push(out, l->v[i]);
}

static void emit_fwd(const Join *st, int b, int a, int z, Plan *out)
{
    for (int i = a; i < z; i++)
        emit_list(&st->fwd[st->first[b] + i], out);
}

/* Revolve reversal of branch b's stages [a, z) with c slots (c = 0 only
 * when z = a + 1); recursion depth bounded by c. */
static void rev(const Join *st, int b, int a, int z, int c, Plan *out)
{
    if (c >= z - a || z - a == 1) {
        emit_fwd(st, b, a, z, out);
        for (int i = z - 1; i >= a; i--)
            emit_list(&st->bwd[st->first[b] + i], out);
        return;
    }
    while (z - a > 1) {
        if (c == 1) {
            emit_fwd(st, b, a, z, out);
            emit_list(&st->bwd[st->first[b] + z - 1], out);
            z--;
            continue;
        }
        int j = joindp_opt0_split(&st->dp, z - a, c);
        emit_fwd(st, b, a, a + j, out);
        rev(st, b, a + j, z, c - 1, out);
        z = a + j;
    }
    emit_fwd(st, b, a, z, out);
    emit_list(&st->bwd[st->first[b] + a], out);
}

typedef struct {
    int m, a, j, s;
} Level;

/* The canonical strategy for c slots: the forward phase walks down the DP
 * choices (advance j stages of branch m), the turn runs, then the levels
 * are unwound, each reversing its j stages. naive: every branch in one
 * piece, in index order. Returns -1 when c is below what the DP allows. */
static int build(const Join *st, int c, int naive, Plan *out)
{
    plan_reset(out);
    int rem[JOIN_KMAX], pos[JOIN_KMAX];
    for (int b = 0; b < st->k; b++) {
        rem[b] = st->len[b];
        pos[b] = 0;
    }
    if (naive ? c < st->cmin : joindp_cost(&st->dp, rem, c) >= JOIN_DP_INF)
        return -1;
    Level *lv = xmallocarray((size_t)st->n_groups + 1, sizeof *lv);
    int nl = 0, cc = c;
    for (;;) {
        int m = -1, j = 0;
        if (naive) {
            for (int b = 0; b < st->k && m < 0; b++)
                if (rem[b]) {
                    m = b;
                    j = rem[b];
                }
        } else {
            size_t at = (size_t)joindp_index(&st->dp, rem) * (size_t)(st->dp.C + 1) +
                        (size_t)(cc > st->dp.C ? st->dp.C : cc);
            int ch = st->dp.choice[at];
            if (ch >= 0) {
                m = ch / 65536;
                j = ch % 65536;
            }
        }
        if (m < 0)
            break;
        emit_fwd(st, m, pos[m], pos[m] + j, out);
        lv[nl++] = (Level){m, pos[m], j, cc - (st->k - 1)};
        pos[m] += j;
        rem[m] -= j;
        cc--;
    }
    emit_list(&st->tail_fwd, out);
    emit_list(&st->tail_bwd, out);
    for (int i = nl - 1; i >= 0; i--) {
        int cr = lv[i].j == 1 ? 0 : lv[i].s - 2;
        if (cr < 1 && lv[i].j > 1)
            cr = 1;
        rev(st, lv[i].m, lv[i].a, lv[i].a + lv[i].j, cr, out);
    }
    emit_list(&st->final, out);
    free(lv);
    return 0;
}

static void emit_seq(const Join *st, int b, const JhSeq *q, int from, int to, Plan *out)
{
    for (int i = from; i < to; i++) {
        int stage = q->st[i] >> 1;
        if (q->st[i] & 1)
            emit_list(&st->bwd[st->first[b] + stage], out);
        else
            emit_fwd(st, b, stage, stage + 1, out);
    }
}

/* Drop re-runs of forward nodes whose value nothing reads before the node
 * runs again (or the end): the chain DP re-runs a stage right before its
 * backward, but a stage whose backward reads only its input (a conv) does
 * not need that. One backward sweep, so dropped steps release their own
 * inputs' re-runs too; a node's first run and outputs are always kept. */
static void prune_dead(const Graph *g, Plan *pl)
{
    unsigned char *seen = xcalloc((size_t)g->n, 1), *need = xcalloc((size_t)g->n, 1);
    unsigned char *prior = xcalloc((size_t)pl->T + 1, 1), *drop = xcalloc((size_t)pl->T + 1, 1);
    for (int i = 0; i < pl->T; i++) {
        prior[i] = seen[pl->steps[i]];
        seen[pl->steps[i]] = 1;
    }
    for (int i = pl->T - 1; i >= 0; i--) {
        int v = pl->steps[i];
        if (prior[i] && !need[v] && g->nodes[v].phase == PHASE_FWD && !g->is_output[v]) {
            drop[i] = 1;
            continue;
        }
        need[v] = 0;
        for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++)
            need[g->in_idx[q]] = 1;
    }
    int T = 0;
    for (int i = 0; i < pl->T; i++)
        if (!drop[i])
            pl->steps[T++] = pl->steps[i];
    pl->T = T;
    free(seen);
    free(need);
    free(prior);
    free(drop);
}

/* A heterogeneous per-branch schedule (join_hetero.h): the forward phase
 * runs the branches in reverse reversal order, kept ones as their
 * strategy's forward prefix, the others as one plain sweep; the branch
 * reversed first goes last so its prefix ends right before the turn. */
static void build_het(const Join *st, const JhCand *c, Plan *out)
{
    plan_reset(out);
    for (int i = st->k - 1; i >= 0; i--) {
        int b = c->order[i];
        const JhSeq *q = &st->jh.seq[b][c->ai[b]];
        if (c->keep >> b & 1)
            emit_seq(st, b, q, 0, q->pre, out);
        else
            emit_fwd(st, b, 0, st->len[b], out);
    }
    emit_list(&st->tail_fwd, out);
    emit_list(&st->tail_bwd, out);
    for (int i = 0; i < st->k; i++) {
        int b = c->order[i];
        const JhSeq *q = &st->jh.seq[b][c->ai[b]];
        emit_seq(st, b, q, c->keep >> b & 1 ? q->pre : 0, q->n, out);
    }
    emit_list(&st->final, out);
    prune_dead(st->g, out);
}

static void join_release(Solver *s)
{
    Join *st = s->state;
    for (int i = 0; i < st->n_groups; i++) {
        free(st->fwd[i].v);
        free(st->bwd[i].v);
    }
    free(st->fwd);
    free(st->bwd);
    free(st->tail_fwd.v);
    free(st->tail_bwd.v);
    free(st->final.v);
    joindp_free(&st->dp);
    jh_free(&st->jh);
    free(st->cands);
}

static int find(int *uf, int x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* Find the join: the first forward node, after the first, that is an
 * ancestor or descendant of every other forward node. */
static int find_join(const Graph *g, const int *fw, int nf, const int *fpos, int *jpos, Err *e)
{
    size_t W = ((size_t)nf + 63) / 64;
    uint64_t *anc = xcalloc((size_t)nf * W, sizeof *anc);
    int *nanc = xcalloc((size_t)nf, sizeof *nanc), *ndesc = xcalloc((size_t)nf, sizeof *ndesc);
    for (int i = 0; i < nf; i++) {
        int v = fw[i];
        for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++) {
            int u = g->in_idx[q];
            if (fpos[u] < 0)
                continue;
            uint64_t *a = anc + (size_t)i * W, *b = anc + (size_t)fpos[u] * W;
            for (size_t w = 0; w < W; w++)
                a[w] |= b[w];
            a[fpos[u] / 64] |= (uint64_t)1 << (fpos[u] % 64);
        }
        for (int p = 0; p < i; p++)
            if (anc[(size_t)i * W + (size_t)p / 64] >> (p % 64) & 1) {
                nanc[i]++;
                ndesc[p]++;
            }
    }
    int found = -1;
    for (int i = 0; i < nf && found < 0; i++)
        if (nanc[i] == i && ndesc[i] == nf - 1 - i) {
            if (i == 0) {
                free(anc), free(nanc), free(ndesc);
                return err_set(e, ERR_UNSUPPORTED,
                               "join: forward part has no branches: node '%s' comes before every "
                               "other forward node, so the forward part does not start as separate branches (use revolve)",
                               g->nodes[fw[0]].id);
            }
            found = i;
        }
    free(anc);
    free(nanc);
    free(ndesc);
    if (found < 0)
        return err_set(e, ERR_UNSUPPORTED,
                       "join: no forward node joins all branches (the forward part does not "
                       "meet at one node before the loss)");
    *jpos = found;
    return ERR_OK;
}

/* The forward nodes in topological order (fw) and each node's index
 * among them (fpos, -1 for the others). Returns their number. */
static int forward_order(const Graph *g, int **fw, int **fpos)
{
    int n = g->n, nf = 0;
    *fw = xmallocarray((size_t)n + 1, sizeof **fw);
    *fpos = xmallocarray((size_t)n + 1, sizeof **fpos);
    for (int t = 0; t < n; t++) {
        int v = g->topo[t];
        (*fpos)[v] = -1;
        if (g->nodes[v].phase == PHASE_FWD) {
            (*fpos)[v] = nf;
            (*fw)[nf++] = v;
        }
    }
    return nf;
}

/* Branches: the connected pieces of the forward nodes before the join
 * (fw[0..jp)); comp[i] is node fw[i]'s branch. Sets *k. */
static int find_branches(const Graph *g, const int *fw, const int *fpos, int jp, int *comp, int *k,
                         Err *e)
{
    int *uf = xmallocarray((size_t)jp + 1, sizeof *uf);
    for (int i = 0; i < jp; i++)
        uf[i] = i;
    for (int i = 0; i < jp; i++)
        for (int q = g->in_off[fw[i]]; q < g->in_off[fw[i] + 1]; q++) {
            int u = g->in_idx[q];
            if (fpos[u] >= 0 && fpos[u] < jp)
                uf[find(uf, fpos[u])] = find(uf, i);
        }
    int root_b[JOIN_KMAX + 1];
    *k = 0;
    for (int i = 0; i < jp; i++) {
        int r = find(uf, i), b = -1;
        for (int q = 0; q < *k; q++)
            if (root_b[q] == r)
                b = q;
        if (b < 0) {
            if (*k == JOIN_KMAX) {
                free(uf);
                return err_set(e, ERR_UNSUPPORTED, "join: more than %d branches meet at '%s'",
                               JOIN_KMAX, g->nodes[fw[jp]].id);
            }
            root_b[*k] = r;
            b = (*k)++;
        }
        comp[i] = b;
    }
    free(uf);
    if (*k < 2)
        return err_set(e, ERR_UNSUPPORTED,
                       "join: the forward part before '%s' is one connected piece, not separate "
                       "branches (use revolve)", g->nodes[fw[jp]].id);
    return ERR_OK;
}

/* Stages per branch: cut where exactly one value (or graph input, from
 * its first reader in the branch to its last) crosses. Fills st->len,
 * st->first, st->n_groups and gstage (node -> stage group, -1 other). */
static void cut_stages(Join *st, const Graph *g, const int *fw, const int *fpos, const int *comp,
                       int jp, int *gstage)
{
    int n = g->n, k = st->k;
    int *left = xcalloc((size_t)n + 1, sizeof *left);
    int *stage_in = xmallocarray((size_t)n + 1, sizeof *stage_in);
    for (int v = 0; v < n; v++)
        stage_in[v] = gstage[v] = -1;
    for (int b = 0; b < k; b++) {
        memset(left, 0, (size_t)n * sizeof *left);
        int crossing = 0, stage = 0, last = -1;
        for (int i = 0; i < jp; i++) {
            if (comp[i] != b)
                continue;
            int v = fw[i];
            stage_in[v] = stage;
            last = v;
            for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++) {
                int u = g->in_idx[q];
                if (g->nodes[u].phase == PHASE_INPUT && left[u] == 0 && stage_in[u] != -2 - b) {
                    stage_in[u] = -2 - b;   /* first reader in this branch */
                    for (int r = g->out_off[u]; r < g->out_off[u + 1]; r++) {
                        int w = g->out_idx[r];
                        left[u] += fpos[w] >= 0 && fpos[w] < jp && comp[fpos[w]] == b;
                    }
                    crossing++;
                }
                if ((g->nodes[u].phase == PHASE_INPUT || (fpos[u] >= 0 && fpos[u] < jp)) &&
                    --left[u] == 0)
                    crossing--;
            }
            for (int q = g->out_off[v]; q < g->out_off[v + 1]; q++)
                left[v] += g->nodes[g->out_idx[q]].phase == PHASE_FWD;
            if (left[v])
                crossing++;
            if (crossing == 1)
                stage++;
        }
        st->len[b] = stage_in[last] + 1;
    }
    st->n_groups = 0;
    for (int b = 0; b < k; b++) {
        st->first[b] = st->n_groups;
        st->n_groups += st->len[b];
    }
    for (int i = 0; i < jp; i++)
        gstage[fw[i]] = st->first[comp[i]] + stage_in[fw[i]];
    free(left);
    free(stage_in);
}

/* Every non-input node into its stage's forward or backward list, the
 * tail (after the join) or the final part (the backward that reads the
 * branches' gradients); gstage gets -1 for the tail, -2 for the final. */
static void assign_nodes(Join *st, const Graph *g, int *gstage)
{
    st->fwd = xcalloc((size_t)st->n_groups, sizeof *st->fwd);
    st->bwd = xcalloc((size_t)st->n_groups, sizeof *st->bwd);
    for (int t = 0; t < g->n; t++) {
        int v = g->topo[t];
        const Node *nd = &g->nodes[v];
        if (nd->phase == PHASE_INPUT)
            continue;
        if (nd->phase == PHASE_FWD && gstage[v] >= 0) {
            list_push(&st->fwd[gstage[v]], v);
            continue;
        }
        if (nd->phase == PHASE_FWD || nd->phase == PHASE_LOSS) {
            list_push(&st->tail_fwd, v);
            continue;
        }
        if (nd->pair >= 0 && g->nodes[nd->pair].phase == PHASE_FWD && gstage[nd->pair] >= 0) {
            gstage[v] = gstage[nd->pair];
            list_push(&st->bwd[gstage[v]], v);
            continue;
        }
        int reads_branch = 0;
        for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++) {
            int u = g->in_idx[q];
            reads_branch |= g->nodes[u].phase == PHASE_BWD && gstage[u] != -1;
        }
        gstage[v] = reads_branch ? -2 : -1;
        list_push(reads_branch ? &st->final : &st->tail_bwd, v);
    }
}

/* The heterogeneous model's candidates from per-stage figures: forward
 * cost, bytes read by a later stage or the turn (the checkpoint), all
 * bytes, and the backward's re-run cost. */
static int build_hetero(Join *st, const Graph *g, const int *gstage, int R, Err *e)
{
    int k = st->k, ng = st->n_groups;
    double *fuf = xcalloc((size_t)ng, sizeof *fuf), *fub = xcalloc((size_t)ng, sizeof *fub);
    int64_t *fxb = xcalloc((size_t)ng, sizeof *fxb), *fall = xcalloc((size_t)ng, sizeof *fall);
    for (int gi = 0; gi < ng; gi++)
        for (int q = 0; q < st->fwd[gi].n; q++) {
            int v = st->fwd[gi].v[q];
            fuf[gi] += g->nodes[v].cost;
            fall[gi] += g->nodes[v].size;
            for (int r = g->out_off[v]; r < g->out_off[v + 1]; r++) {
                int w = g->out_idx[r];
                if ((g->nodes[w].phase == PHASE_FWD || g->nodes[w].phase == PHASE_LOSS) &&
                    gstage[w] != gi) {
                    fxb[gi] += g->nodes[v].size;
                    break;
                }
            }
        }
    /* a stage's backward that reads none of the stage's own values (a
     * convolution's reads its input) needs no re-run of the stage */
    for (int gi = 0; gi < ng; gi++) {
        int reads = 0;
        for (int q = 0; q < st->bwd[gi].n && !reads; q++) {
            int w = st->bwd[gi].v[q];
            for (int r = g->in_off[w]; r < g->in_off[w + 1]; r++) {
                int u = g->in_idx[r];
                reads |= g->nodes[u].phase == PHASE_FWD && gstage[u] == gi;
            }
        }
        fub[gi] = reads ? fuf[gi] : 0;
    }
    double *fu[JOIN_KMAX], *bu[JOIN_KMAX];
    int64_t *xb[JOIN_KMAX], *all[JOIN_KMAX];
    for (int b = 0; b < k; b++) {
        fu[b] = fuf + st->first[b];
        bu[b] = fub + st->first[b];
        xb[b] = fxb + st->first[b];
        all[b] = fall + st->first[b];
    }
    int rc = jh_build(&st->jh, k, st->len, fu, bu, xb, all, R, NULL, e);
    if (rc == ERR_OK) {
        double cap = JOIN_HET_STEPS / (4.0 * g->n);
        st->n_cands = jh_candidates(&st->jh, cap < 256 ? 256 : cap > 20000 ? 20000 : (int)cap,
                                    &st->cands);
    }
    free(fuf);
    free(fub);
    free(fxb);
    free(fall);
    return rc;
}

/* The largest-slot schedule must simulate; otherwise the grouping of
 * backward nodes does not fit this graph. */
static int check_grouping(Join *st, int C, Err *e)
{
    Plan tmp;
    plan_init(&tmp);
    build(st, C, 0, &tmp);
    Sim sim;
    Err se;
    err_clear(&se);
    int rc = sim_run(st->g, tmp.steps, tmp.T, &sim, &se);
    plan_done(&tmp);
    if (rc)
        return err_set(e, ERR_UNSUPPORTED,
                       "join: backward nodes do not follow the branches' stages (%s)", se.msg);
    sim_done(&sim);
    return ERR_OK;
}

static int join_prepare(Solver *s, Err *e)
{
    const Graph *g = s->g;
    /* the table's words auto|homogeneous|heterogeneous as Join.model */
    static const int model_of[] = {1, 0, 2};
    int strategy, mw;
    if (solver_opt_choice(s, "strategy", &strategy, e) || solver_opt_choice(s, "model", &mw, e))
        return e->code;
    int model = model_of[mw];
    long long R;
    if (solver_opt_int(s, "mem_resolution", &R, e))   /* 1..4096, by the option table */
        return e->code;
    if (pairing_require(g, "join", e))
        return e->code;
    int *fw, *fpos, nf = forward_order(g, &fw, &fpos), jp = -1, k = 0;
    int rc = nf > JOIN_MAX_FWD ? err_set(e, ERR_UNSUPPORTED, "join: %d forward nodes, more than %d",
                                         nf, JOIN_MAX_FWD)
                               : find_join(g, fw, nf, fpos, &jp, e);
    int *comp = xmallocarray((size_t)(jp > 0 ? jp : 1), sizeof *comp);
    if (!rc)
        rc = find_branches(g, fw, fpos, jp, comp, &k, e);
    if (rc) {
        free(fw), free(fpos), free(comp);
        return rc;
    }
    Join *st = s->state;
    st->k = k;
    st->strategy = strategy;
    st->join_node = fw[jp];
    st->g = g;
    int *gstage = xmallocarray((size_t)g->n + 1, sizeof *gstage);
    cut_stages(st, g, fw, fpos, comp, jp, gstage);
    assign_nodes(st, g, gstage);
    free(comp);
    free(fw);
    free(fpos);
    st->cmin = join_min_slots(k, st->len);
    int C = st->n_groups + 2 * k + 2;
    if (joindp_build(&st->dp, k, st->len, C, JOIN_MAX_CELLS))
        rc = err_set(e, ERR_UNSUPPORTED, "join: %d branches with %d stages: DP table too large", k,
                     st->n_groups);
    else
        rc = check_grouping(st, C, e);
    /* auto: both families; the simulator picks (even on unit stages the
     * per-branch schedules can be cheaper: join3 at 75 %) */
    st->model = model;
    if (!rc && st->model) {
        rc = build_hetero(st, g, gstage, (int)R, e);
        if (rc && model == 1) {
            st->model = 0;  /* auto: the homogeneous candidates alone */
            err_clear(e);
            rc = ERR_OK;
        }
    }
    free(gstage);
    return rc;
}

static void baseline_plan(const Graph *g, Plan *out)
{
    int T;
    int *bl = sim_baseline_order(g, &T);
    plan_reset(out);
    for (int i = 0; i < T; i++)
        plan_push(out, bl[i]);
    free(bl);
}

/* A candidate's tag: kind (0 the DP, 1 naive, 2 the plain sweep, 3 a
 * heterogeneous per-branch schedule) and its slot count or index. */
#define TAG(kind, x) ((kind) * 1000000 + (x))
#define TAG_KIND(t) ((t) / 1000000)
#define TAG_X(t) ((t) % 1000000)

static int rebuild(void *ctx, const Cand *c, Plan *out, Progress *p, Err *e)
{
    (void)p;
    const Solver *s = ctx;
    const Join *st = s->state;
    int kind = TAG_KIND(c->tag), x = TAG_X(c->tag);
    if (kind == 2)
        baseline_plan(s->g, out);
    else if (kind == 3)
        build_het(st, &st->cands[x], out);
    else if (build(st, x, kind, out))
        return err_set(e, ERR_INVALID, "join: slot count %d builds no schedule", x);
    return ERR_OK;
}

/* Candidates, simulated once: the DP (or naive) schedule for every slot
 * count from Theorem 3.3's minimum up, the heterogeneous per-branch
 * schedules (model auto or heterogeneous) and the plain sweep (no
 * recomputation). The optimal strategy also tries naive schedules, since
 * the DP's slot model does not see the simulator's bytes. */
static int fill_cands(Solver *s, Progress *p, Err *e)
{
    Join *st = s->state;
    s->cands.rebuild = rebuild;
    s->cands.ctx = s;
    Plan tmp;
    plan_init(&tmp);
    int hi = st->strategy == 2 ? st->cmin : st->dp.C;
    int lo = st->strategy == 0 ? 0 : st->cmin;
    int homog = st->model != 2 || st->strategy != 0, nt = 0;
    int *tags = xmallocarray((size_t)3 * (hi - lo + 1) + (size_t)st->n_cands + 1, sizeof *tags);
    for (int c = hi; c >= lo; c--)
        for (int kind = 0; kind < 3; kind++) {
            if (kind == 2 ? (c != lo || st->strategy == 2)
                          : !homog || (kind != (st->strategy == 1) && st->strategy != 0))
                continue;
            if (kind < 2 && c < st->cmin)
                continue;
            /* slot counts that build no schedule are not candidates */
            if (kind < 2 && build(st, c, kind, &tmp))
                continue;
            tags[nt++] = TAG(kind, kind == 2 ? 0 : c);
        }
    if (st->model && st->strategy == 0)
        for (int i = 0; i < st->n_cands; i++)
            tags[nt++] = TAG(3, i);
    plan_done(&tmp);
    int rc = cands_add_family(&s->cands, s->g, tags, nt, "join", p, e);
    free(tags);
    return rc;
}

/* Made once, the candidates make every budget a pick: the cheapest whose
 * simulated peak fits, else the lowest peak (src/plan/cands.h). */
static int join_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    Join *st = s->state;
    int rc;
    if (!s->cands.n && (rc = fill_cands(s, p, e)))
        return rc;
    int i = cands_pick(&s->cands, budget);
    const Cand *c = &s->cands.c[i];
    int kind = TAG_KIND(c->tag);
    st->best_kind = kind;
    st->best_c = kind < 2 ? TAG_X(c->tag) : 0;
    st->best_het = kind == 3 ? TAG_X(c->tag) : -1;
    if ((rc = cands_emit(&s->cands, i, out, p, e)))
        return rc;
    if (budget != PLAN_NO_BUDGET && c->peak > budget) {
        /* solver_plan puts the measured figures in front of this reason */
        char how[64];
        if (kind == 2)
            snprintf(how, sizeof how, "without recomputation");
        else if (kind == 3)
            snprintf(how, sizeof how, "from a heterogeneous per-branch schedule");
        else
            snprintf(how, sizeof how, "with %d", st->best_c);
        return err_set(e, ERR_OVER_BUDGET,
                       "Theorem 3.3: the join needs at least %d slots; the lowest peak came %s",
                       st->cmin, how);
    }
    return ERR_OK;
}

static void join_describe(const Solver *s, Overlay *out)
{
    const Join *st = s->state;
    const Graph *g = s->g;
    char buf[512];
    int k = snprintf(buf, sizeof buf, "join at '%s': %d branches (", g->nodes[st->join_node].id,
                     st->k);
    for (int b = 0; b < st->k && k < (int)sizeof buf; b++)
        k += snprintf(buf + k, sizeof buf - (size_t)k, "%s%d", b ? "+" : "", st->len[b]);
    if (st->best_kind == 3 && st->best_het >= 0 && k < (int)sizeof buf) {
        /* which branch was reversed when, and its allowance in its own
         * buckets ("*": its forward prefix was kept through the turn) */
        const JhCand *c = &st->cands[st->best_het];
        k += snprintf(buf + k, sizeof buf - (size_t)k, " stages), heterogeneous, reversed");
        for (int i = 0; i < st->k && k < (int)sizeof buf; i++) {
            int b = c->order[i];
            k += snprintf(buf + k, sizeof buf - (size_t)k, "%s%d%s (%d/%d buckets)",
                          i ? ", " : " ", b + 1, c->keep >> b & 1 ? "*" : "",
                          st->jh.allow[b][c->ai[b]], st->jh.dp[b].R);
        }
        if (k < (int)sizeof buf)
            snprintf(buf + k, sizeof buf - (size_t)k, "; Theorem 3.3 minimum %d slots", st->cmin);
    } else if (k < (int)sizeof buf) {
        if (st->best_c > 0)
            snprintf(buf + k, sizeof buf - (size_t)k,
                     " stages), %d slots; Theorem 3.3 minimum %d slots", st->best_c, st->cmin);
        else
            snprintf(buf + k, sizeof buf - (size_t)k,
                     " stages), no recomputation; Theorem 3.3 minimum %d slots", st->cmin);
    }
    overlay_set_title(out, buf);
    for (int b = 0; b < st->k; b++)
        for (int i = 0; i < st->len[b]; i++) {
            const List *l = &st->fwd[st->first[b] + i];
            snprintf(buf, sizeof buf, "branch %d stage %d: %d nodes", b + 1, i + 1, l->n);
            int gi = overlay_add(out, OVERLAY_SEGMENT, buf, -1, 0);
            for (int q = 0; q < l->n; q++)
                overlay_add_node(out, gi, l->v[q]);
        }
    int gi = overlay_add(out, OVERLAY_SEGMENT, "turn: join, loss and their backward", -1, 0);
    for (int q = 0; q < st->tail_fwd.n; q++)
        overlay_add_node(out, gi, st->tail_fwd.v[q]);
}

static const SolverParam params[] = {
    OPT_P_CHOICE("strategy", "optimal", "optimal|naive|min-memory",
                 "optimal (the join DP), naive (each branch advanced in one piece, in order) or "
                 "min-memory (Theorem 3.3's smallest slot count only)"),
    OPT_P_CHOICE("model", "auto", "auto|homogeneous|heterogeneous",
                 "homogeneous (the join DP on unit slots), heterogeneous (per-branch chain DPs over "
                 "the stages' costs and sizes, branches reversed one after the other) or auto (both; "
                 "the simulated best wins)"),
    OPT_P_INT("mem_resolution", "64", 1, 4096, NULL,
              "memory buckets per branch of the heterogeneous DPs (branch forward bytes / this)"),
    OPT_P_END};

const SolverClass solver_join = {
    .name = "join",
    .title = "Join graphs: k chains meeting at a join (Beaumont et al. 2020 DP, Theorem 3.3)",
    .params = params,
    .state_size = sizeof(Join),
    .prepare = join_prepare,
    .solve = join_solve,
    .describe = join_describe,
    .release = join_release,
};
