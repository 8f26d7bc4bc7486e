/* fastsa.c — FastSA (Imanishi et al. 2023): simulated annealing over a
 * fixed-length sequence of T = 2^k slots, most of them nop. Mutations add a
 * recomputation, remove one, or move one to another slot; each is checked
 * against per-value sorted production/use times and applied by updating the
 * life intervals of the values it touches in a range-add/range-max segment
 * tree, so the peak of the spec's memory curve is known after every step.
 * Stages: annealing on fused node groups (grouping=on), then on single
 * nodes until the budget is met, then a cooler pass that trims cost.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "solvers/fastsa.h"
#include "solvers/segtree.h"
#include "src/sim.h"
#include "src/solver.h"
#include "src/xalloc.h"

static const SolverParam params[] = {
    {"seed", "1", "seed of the solver's own random generator"},
    {"iters", "20000000", "most mutations per annealing stage (the last one gets a tenth)"},
    {"time_limit", "2", "seconds for the whole search"},
    {"resolve_time", "0.08", "seconds for a warm-started re-solve after a budget change (the slider)"},
    {"slack", "4", "slots per step of the initial order (the rest start as nop)"},
    {"grouping", "on", "on: first anneal fused node groups (Algorithm 1), then single nodes"},
    {"group_max", "64", "most nodes in one group"},
    {"logaddexp", "off", "on: the objective sees a soft peak (logaddexp tree, appendix C.2)"},
    {NULL, NULL, NULL},
};

/* ---- sorted int sets ------------------------------------------------- */

typedef struct {
    int *a;
    int n, cap;
} ISet;

/* index of the first element >= x */
static inline int iset_lower(const ISet *s, int x)
{
    int lo = 0, hi = s->n;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (s->a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void iset_insert(ISet *s, int x)
{
    int i = iset_lower(s, x);
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4;
        s->a = xreallocarray(s->a, (size_t)s->cap, sizeof *s->a);
    }
    memmove(s->a + i + 1, s->a + i, (size_t)(s->n - i) * sizeof *s->a);
    s->a[i] = x;
    s->n++;
}

static void iset_erase(ISet *s, int x)
{
    int i = iset_lower(s, x);
    memmove(s->a + i, s->a + i + 1, (size_t)(s->n - i - 1) * sizeof *s->a);
    s->n--;
}

/* ---- units: what one slot runs -------------------------------------- */

/* A unit is one graph node, or (grouping) a run of nodes executed back to
 * back. It reads values in[] and produces values out[]; values are graph
 * nodes. */
typedef struct {
    int *in, n_in;
    int *out, n_out;
    int *mem, n_mem;    /* graph nodes it runs, in order */
    double cost;
    int64_t ws;         /* workspace charged at the unit's own slot */
} Unit;

typedef struct {
    const Graph *g;
    Unit *u;
    int n_units;
    int *unit_of;       /* graph node -> its single-node unit */
    int64_t *vsize;     /* per value */
    const unsigned char *is_out;
} Units;

/* ---- annealing state ------------------------------------------------ */

typedef struct {
    const Units *U;
    int T;
    int *seq;           /* unit per slot, -1 = nop */
    ISet *P, *R;        /* per value: production times, read times */
    SegTree st;
    double cost;
    int count;          /* non-nop slots */
    int lae;            /* also keep the smoothed curve (logaddexp=on) */
    double scale;       /* bytes per unit of the smoothed curve */
    SegTreeF sf;
} State;

/* A nop slot sits this far below everything in the smoothed curve, so it
 * adds nothing to the soft peak (appendix C.2); placing a unit lifts it. */
#define LAE_LIFT 1e6

static inline void mem_add(State *S, int l, int r, int64_t v)
{
    segtree_add(&S->st, l, r, v);
    if (S->lae)
        segtreef_add(&S->sf, l, r, (double)v / S->scale);
}

/* Last slot the copy of v produced at p is held (spec §3). */
static inline int held_end(const State *S, int v, int p)
{
    const ISet *P = &S->P[v], *R = &S->R[v];
    int i = iset_lower(P, p + 1);
    int next = i < P->n ? P->a[i] : S->T;
    int j = iset_lower(R, next) - 1;
    if (j >= 0 && R->a[j] > p)
        return R->a[j];
    if (next == S->T && S->U->is_out[v])
        return S->T - 1;
    return p;
}

/* latest production of v strictly before t, or -1 */
static inline int prod_before(const State *S, int v, int t)
{
    const ISet *P = &S->P[v];
    int i = iset_lower(P, t) - 1;
    return i >= 0 ? P->a[i] : -1;
}

static inline void adjust(State *S, int a, int e0, int e1, int64_t sz)
{
    (void)a;
    if (e1 > e0)
        mem_add(S, e0 + 1, e1, sz);
    else if (e1 < e0)
        mem_add(S, e1 + 1, e0, -sz);
}

static int can_add(const State *S, int u, int t)
{
    const Unit *x = &S->U->u[u];
    for (int k = 0; k < x->n_in; k++) {
        const ISet *P = &S->P[x->in[k]];
        if (P->n == 0 || P->a[0] >= t)
            return 0;
    }
    return 1;
}

static int can_remove(const State *S, int t)
{
    const Unit *x = &S->U->u[S->seq[t]];
    for (int k = 0; k < x->n_out; k++) {
        int v = x->out[k];
        const ISet *P = &S->P[v];
        if (P->a[0] < t)
            continue;           /* an earlier production serves its readers */
        if (P->n == 1 && S->U->is_out[v])
            return 0;           /* the output would never be produced */
        int next = P->n > 1 ? P->a[1] : S->T;
        const ISet *R = &S->R[v];
        int j = iset_lower(R, t + 1);
        if (j < R->n && R->a[j] < next)
            return 0;           /* a reader would lose its value */
    }
    return 1;
}

static void apply_add(State *S, int u, int t)
{
    const Unit *x = &S->U->u[u];
    const int64_t *sz = S->U->vsize;
    for (int k = 0; k < x->n_out; k++) {
        int v = x->out[k];
        int a = prod_before(S, v, t), e0 = a >= 0 ? held_end(S, v, a) : 0;
        iset_insert(&S->P[v], t);
        if (a >= 0)
            adjust(S, a, e0, held_end(S, v, a), sz[v]);
        mem_add(S, t, held_end(S, v, t), sz[v]);
    }
    for (int k = 0; k < x->n_in; k++) {
        /* a read at t inside a's interval can only stretch it to t */
        int v = x->in[k];
        int a = prod_before(S, v, t), e0 = held_end(S, v, a);
        iset_insert(&S->R[v], t);
        if (t > e0)
            mem_add(S, e0 + 1, t, sz[v]);
    }
    if (x->ws)
        mem_add(S, t, t, x->ws);
    if (S->lae)
        segtreef_add(&S->sf, t, t, LAE_LIFT);
    S->seq[t] = u;
    S->cost += x->cost;
    S->count++;
}

static void apply_remove(State *S, int t)
{
    int u = S->seq[t];
    const Unit *x = &S->U->u[u];
    const int64_t *sz = S->U->vsize;
    for (int k = 0; k < x->n_in; k++) {
        /* dropping the read at t changes a's interval only if it ended there */
        int v = x->in[k];
        int a = prod_before(S, v, t), e0 = held_end(S, v, a);
        iset_erase(&S->R[v], t);
        if (e0 == t)
            adjust(S, a, e0, held_end(S, v, a), sz[v]);
    }
    for (int k = 0; k < x->n_out; k++) {
        int v = x->out[k];
        int a = prod_before(S, v, t), e0 = a >= 0 ? held_end(S, v, a) : 0;
        mem_add(S, t, held_end(S, v, t), -sz[v]);
        iset_erase(&S->P[v], t);
        if (a >= 0)
            adjust(S, a, e0, held_end(S, v, a), sz[v]);
    }
    if (x->ws)
        mem_add(S, t, t, -x->ws);
    if (S->lae)
        segtreef_add(&S->sf, t, t, -LAE_LIFT);
    S->seq[t] = -1;
    S->cost -= x->cost;
    S->count--;
}

static void state_init(State *S, const Units *U, int T)
{
    memset(S, 0, sizeof *S);
    S->U = U;
    S->T = T;
    S->seq = xmallocarray((size_t)T, sizeof *S->seq);
    for (int t = 0; t < T; t++)
        S->seq[t] = -1;
    S->P = xcalloc((size_t)U->g->n, sizeof *S->P);
    S->R = xcalloc((size_t)U->g->n, sizeof *S->R);
    segtree_init(&S->st, T);
}

static void state_done(State *S)
{
    for (int v = 0; S->P && v < S->U->g->n; v++) {
        free(S->P[v].a);
        free(S->R[v].a);
    }
    free(S->P);
    free(S->R);
    free(S->seq);
    segtree_done(&S->st);
    if (S->lae)
        segtreef_done(&S->sf);
}

/* Turn on the smoothed curve; before any unit is placed. */
static void state_smooth(State *S, double scale)
{
    S->lae = 1;
    S->scale = scale > 0 ? scale : 1;
    segtreef_init(&S->sf, S->T, -LAE_LIFT);
}

/* Peak of the spec's memory curve for the current sequence. */
static inline int64_t state_peak(const State *S)
{
    int64_t m = segtree_top(&S->st);
    return (m > 0 ? m : 0) + S->U->g->input_bytes;
}

/* The peak the objective sees: the soft peak with logaddexp=on. */
static inline int64_t state_obj_peak(const State *S)
{
    if (!S->lae)
        return state_peak(S);
    double m = segtreef_top(&S->sf) * S->scale;
    return (m > 0 ? (int64_t)m : 0) + S->U->g->input_bytes;
}

/* ---- units from the graph ------------------------------------------- */

static void units_plain(Units *U, const Graph *g)
{
    memset(U, 0, sizeof *U);
    U->g = g;
    U->u = xcalloc((size_t)g->n, sizeof *U->u);
    U->unit_of = xmallocarray((size_t)g->n, sizeof *U->unit_of);
    U->vsize = xmallocarray((size_t)g->n, sizeof *U->vsize);
    U->is_out = g->is_output;
    for (int v = 0; v < g->n; v++) {
        U->vsize[v] = g->nodes[v].size;
        U->unit_of[v] = -1;
        if (g->nodes[v].phase == PHASE_INPUT)
            continue;
        Unit *x = &U->u[U->n_units];
        U->unit_of[v] = U->n_units++;
        int deg = g->in_off[v + 1] - g->in_off[v];
        x->in = xmallocarray((size_t)deg + 1, sizeof *x->in);
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (g->nodes[g->in_idx[k]].phase != PHASE_INPUT)
                x->in[x->n_in++] = g->in_idx[k];
        x->out = xmalloc(sizeof *x->out);
        x->out[0] = v;
        x->n_out = 1;
        x->mem = xmalloc(sizeof *x->mem);
        x->mem[0] = v;
        x->n_mem = 1;
        x->cost = g->nodes[v].cost;
        x->ws = g->nodes[v].workspace;
    }
}

static void units_done(Units *U)
{
    for (int i = 0; U->u && i < U->n_units; i++) {
        free(U->u[i].in);
        free(U->u[i].out);
        free(U->u[i].mem);
    }
    free(U->u);
    free(U->unit_of);
    free(U->vsize);
    memset(U, 0, sizeof *U);
}

/* ---- node grouping (Algorithm 1, appendix C.1) ---------------------- */

typedef struct {
    int *a;
    int n, cap;
} IVec;

static void ivec_push(IVec *v, int x)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 4;
        v->a = xreallocarray(v->a, (size_t)v->cap, sizeof *v->a);
    }
    v->a[v->n++] = x;
}

static int ivec_has(const IVec *v, int x)
{
    for (int i = 0; i < v->n; i++)
        if (v->a[i] == x)
            return 1;
    return 0;
}

static void ivec_drop(IVec *v, int x)
{
    for (int i = 0; i < v->n; i++)
        if (v->a[i] == x) {
            v->a[i] = v->a[--v->n];
            return;
        }
}

/* Extra bytes a group needs while it runs beyond what its slot already
 * counts (its inputs and its final value): the values made and consumed
 * inside it, plus each member's workspace (appendix B.1). */
static int64_t group_workspace(const Graph *g, const int *mem, int n, int *lastread, int *where)
{
    for (int k = 0; k < n; k++) {
        where[mem[k]] = k;
        lastread[k] = k;
    }
    for (int k = 0; k < n; k++) {
        int m = mem[k];
        for (int e = g->in_off[m]; e < g->in_off[m + 1]; e++) {
            int w = where[g->in_idx[e]];
            if (w >= 0 && w < k && mem[w] == g->in_idx[e])
                lastread[w] = k;
        }
    }
    int64_t live = 0, best = 0;
    int64_t *drop = xcalloc((size_t)n, sizeof *drop);
    for (int k = 0; k < n; k++) {
        int m = mem[k];
        int64_t own = k < n - 1 ? g->nodes[m].size : 0;
        live += own;
        drop[lastread[k]] += own;
        int64_t x = live + g->nodes[m].workspace;
        best = x > best ? x : best;
        live -= drop[k];
    }
    free(drop);
    for (int k = 0; k < n; k++)
        where[mem[k]] = -1;
    return best;
}

/* Units for order[0..L) after Algorithm 1: a unit whose inputs take no more
 * memory than its value (resident inputs count as free) is fused into every
 * later unit that reads it and leaves the sequence, so its readers recompute
 * it. Groups stay within `cap` nodes. *seq gets the surviving units in order
 * (caller frees), *L2 their count. */
static void units_grouped(Units *U, const Graph *g, const int *order, int L, int cap, int **seq,
                          int *L2)
{
    int n = g->n;
    memset(U, 0, sizeof *U);
    U->g = g;
    U->is_out = g->is_output;
    U->vsize = xmallocarray((size_t)n, sizeof *U->vsize);
    for (int v = 0; v < n; v++)
        U->vsize[v] = g->nodes[v].size;
    IVec *mem = xcalloc((size_t)L, sizeof *mem), *in = xcalloc((size_t)L, sizeof *in);
    IVec *readers = xcalloc((size_t)n, sizeof *readers); /* positions reading value v */
    unsigned char *alive = xmalloc((size_t)L);
    for (int i = 0; i < L; i++) {
        int v = order[i];
        alive[i] = 1;
        ivec_push(&mem[i], v);
        for (int e = g->in_off[v]; e < g->in_off[v + 1]; e++) {
            int w = g->in_idx[e];
            if (g->nodes[w].phase == PHASE_INPUT)
                continue;
            ivec_push(&in[i], w);
            ivec_push(&readers[w], i);
        }
    }
    int *stamp = xmallocarray((size_t)n, sizeof *stamp);
    for (int v = 0; v < n; v++)
        stamp[v] = -1;
    IVec tmp = {0};
    for (int i = 0; i < L; i++) {
        int v = order[i];
        /* forward values only: a gradient is read once, right away, so
         * fusing it would only pin the backward order */
        if (g->is_output[v] || readers[v].n == 0 || g->nodes[v].phase != PHASE_FWD)
            continue;
        int64_t insz = 0;
        for (int k = 0; k < in[i].n; k++)
            insz += g->nodes[in[i].a[k]].size;
        if (insz > g->nodes[v].size)
            continue;
        int ok = 1;
        for (int r = 0; r < readers[v].n && ok; r++)
            ok = mem[i].n + mem[readers[v].a[r]].n <= cap;
        if (!ok)
            continue;
        for (int r = 0; r < readers[v].n; r++) {
            int j = readers[v].a[r];
            /* members: i's then j's, each node once (its first run serves
             * every later member, as they run back to back) */
            tmp.n = 0;
            for (int k = 0; k < mem[i].n; k++)
                if (stamp[mem[i].a[k]] != j) {
                    stamp[mem[i].a[k]] = j;
                    ivec_push(&tmp, mem[i].a[k]);
                }
            for (int k = 0; k < mem[j].n; k++)
                if (stamp[mem[j].a[k]] != j) {
                    stamp[mem[j].a[k]] = j;
                    ivec_push(&tmp, mem[j].a[k]);
                }
            for (int k = 0; k < tmp.n; k++)
                stamp[tmp.a[k]] = -1;
            IVec sw = mem[j];
            mem[j] = tmp;
            tmp = sw;
            /* inputs: in(i) joins in(j), v leaves it */
            ivec_drop(&in[j], v);
            for (int k = 0; k < in[i].n; k++) {
                int w = in[i].a[k];
                if (!ivec_has(&in[j], w)) {
                    ivec_push(&in[j], w);
                    ivec_push(&readers[w], j);
                }
            }
        }
        for (int k = 0; k < in[i].n; k++)
            ivec_drop(&readers[in[i].a[k]], i);
        readers[v].n = 0;
        alive[i] = 0;
    }
    int m = 0;
    for (int i = 0; i < L; i++)
        m += alive[i];
    U->u = xcalloc((size_t)m + 1, sizeof *U->u);
    *seq = xmallocarray((size_t)m + 1, sizeof **seq);
    int maxmem = 1;
    for (int i = 0; i < L; i++)
        maxmem = mem[i].n > maxmem ? mem[i].n : maxmem;
    int *lastread = xmallocarray((size_t)maxmem, sizeof *lastread);
    for (int i = 0; i < L; i++) {
        if (!alive[i])
            continue;
        Unit *x = &U->u[U->n_units];
        (*seq)[U->n_units] = U->n_units;
        U->n_units++;
        x->in = xmallocarray((size_t)in[i].n + 1, sizeof *x->in);
        memcpy(x->in, in[i].a, (size_t)in[i].n * sizeof *x->in);
        x->n_in = in[i].n;
        x->out = xmalloc(sizeof *x->out);
        x->out[0] = order[i];
        x->n_out = 1;
        x->mem = xmallocarray((size_t)mem[i].n, sizeof *x->mem);
        memcpy(x->mem, mem[i].a, (size_t)mem[i].n * sizeof *x->mem);
        x->n_mem = mem[i].n;
        for (int k = 0; k < x->n_mem; k++)
            x->cost += g->nodes[x->mem[k]].cost;
        x->ws = group_workspace(g, x->mem, x->n_mem, lastread, stamp);
    }
    *L2 = U->n_units;
    free(lastread);
    free(tmp.a);
    for (int i = 0; i < L; i++) {
        free(mem[i].a);
        free(in[i].a);
    }
    for (int v = 0; v < n; v++)
        free(readers[v].a);
    free(mem);
    free(in);
    free(readers);
    free(alive);
    free(stamp);
}

/* ---- the annealer --------------------------------------------------- */

typedef struct {
    uint64_t s;
} Rng;

static inline uint64_t rng_next(Rng *r)
{
    /* splitmix64: tiny, fast, good enough for move selection */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline int rng_below(Rng *r, int n)
{
    return (int)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

static inline double rng_unit(Rng *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    long long iters;
    double time_limit;
    double resolve_time;
    int slack;
    int grouping;
    int logaddexp;
    int group_max;
    uint64_t seed;
} Params;

typedef struct {
    Units U;
    Params prm;
    long long last_tried;   /* mutations tried by the last solve (benchmarks) */
    /* lowest peak a full search reached when it missed its budget (0:
     * none yet): a later budget below it will not be met by another full
     * search either, so re-solves skip it and answer at slider speed */
    int64_t missed_floor;
} FastSA;

typedef struct {
    int64_t budget;
    double ceps;            /* keeps the objective informative at zero cost */
    double f;               /* current objective */
    int64_t M;
    int feasible_only;      /* second stage: never leave the budget */
    double best_key_c, best_key_m;
    int best_feasible;
    int *best_seq;
} Run;

static inline double objective(const Run *r, int64_t M, double C)
{
    double m = (double)(M > r->budget ? M : r->budget);
    return m * (C + r->ceps);
}

/* Is the current state better than the best snapshot? Meeting the budget
 * first, then lower cost (feasible) or lower objective (not). */
static void maybe_snapshot(Run *r, const State *S)
{
    int64_t M = state_peak(S);
    int feas = M <= r->budget;
    double key = feas ? S->cost : objective(r, M, S->cost);
    int better = !r->best_seq || feas > r->best_feasible ||
                 (feas == r->best_feasible && (key < r->best_key_c ||
                  (key == r->best_key_c && (double)M < r->best_key_m)));
    if (!better)
        return;
    if (!r->best_seq)
        r->best_seq = xmallocarray((size_t)S->T, sizeof *r->best_seq);
    memcpy(r->best_seq, S->seq, (size_t)S->T * sizeof *S->seq);
    r->best_feasible = feas;
    r->best_key_c = key;
    r->best_key_m = (double)M;
}

/* Accept or undo: returns 1 to keep the mutation. */
static inline int judge(Run *r, State *S, Rng *rng, double temp)
{
    int64_t M = state_peak(S);
    if (r->feasible_only && M > r->budget)
        return 0;
    double f = objective(r, state_obj_peak(S), S->cost);
    double d = f - r->f;
    if (d <= 0 || rng_unit(rng) < exp(-d / temp)) {
        r->f = f;
        r->M = M;
        return 1;
    }
    return 0;
}

/* A random slot holding (want_nop=0) or not holding a unit; -1 if a few
 * tries find none. */
static inline int pick_slot(const State *S, Rng *rng, int want_nop)
{
    for (int k = 0; k < 16; k++) {
        int t = rng_below(rng, S->T);
        if ((S->seq[t] < 0) == want_nop)
            return t;
    }
    return -1;
}

/* One annealing stage: at most n mutations, temperature from h0 down to
 * h1 (exponential in progress, progress = max(iterations, elapsed time)),
 * until `deadline`; stop_at_budget ends it once the peak meets the budget.
 * Returns mutations tried, or -1 when cancelled. */
static long long anneal(Run *r, State *S, Rng *rng, long long n, double h0, double h1,
                        double t0, double deadline, int stop_at_budget, Progress *p)
{
    const Units *U = S->U;
    double temp = h0, span = deadline - t0;
    long long it;
    for (it = 0; it < n; it++) {
        if ((it & 4095) == 0) {
            if (progress_cancelled(p))
                return -1;
            double t = now_s();
            if (t >= deadline)
                break;
            double frac = (double)it / (double)n, ft = span > 0 ? (t - t0) / span : 1;
            if (ft > frac)
                frac = ft;
            temp = h0 * exp(log(h1 / h0) * frac);
            maybe_snapshot(r, S);
            if (stop_at_budget && r->M <= r->budget)
                break;
        }
        int kind = rng_below(rng, 10);
        if (kind < 4) {                 /* add a recomputation */
            int t = pick_slot(S, rng, 1);
            if (t < 0)
                continue;
            int u = rng_below(rng, U->n_units);
            if (!can_add(S, u, t))
                continue;
            apply_add(S, u, t);
            if (!judge(r, S, rng, temp))
                apply_remove(S, t);
        } else if (kind < 7) {          /* remove one */
            int t = pick_slot(S, rng, 0);
            if (t < 0 || !can_remove(S, t))
                continue;
            int u = S->seq[t];
            apply_remove(S, t);
            if (!judge(r, S, rng, temp))
                apply_add(S, u, t);
        } else {                        /* move one, near or anywhere */
            int t1 = pick_slot(S, rng, 0);
            if (t1 < 0)
                continue;
            int t2;
            if (kind < 9) {
                t2 = t1 + rng_below(rng, 33) - 16;
                if (t2 < 0 || t2 >= S->T || S->seq[t2] >= 0)
                    continue;
            } else if ((t2 = pick_slot(S, rng, 1)) < 0) {
                continue;
            }
            int u = S->seq[t1];
            if (!can_add(S, u, t2))
                continue;
            apply_add(S, u, t2);
            if (!can_remove(S, t1)) {
                apply_remove(S, t2);
                continue;
            }
            apply_remove(S, t1);
            if (!judge(r, S, rng, temp)) {
                apply_add(S, u, t1);
                apply_remove(S, t2);
            }
        }
    }
    return it;
}

static int fastsa_prepare(Solver *s, Err *e)
{
    Params prm;
    long long seed, slack;
    int rc;
    if ((rc = solver_opt_int(s, "seed", &seed, e)) || (rc = solver_opt_int(s, "iters", &prm.iters, e)) ||
        (rc = solver_opt_double(s, "time_limit", &prm.time_limit, e)) ||
        (rc = solver_opt_double(s, "resolve_time", &prm.resolve_time, e)) ||
        (rc = solver_opt_int(s, "slack", &slack, e)))
        return rc;
    if (prm.iters < 0)
        return err_set(e, ERR_USAGE, "fastsa: iters=%lld: must be >= 0", prm.iters);
    if (!(prm.time_limit > 0) || !(prm.resolve_time > 0))
        return err_set(e, ERR_USAGE, "fastsa: time_limit and resolve_time must be > 0 seconds");
    if (slack < 1 || slack > 64)
        return err_set(e, ERR_USAGE, "fastsa: slack=%lld: expected 1..64", slack);
    long long gmax;
    if ((rc = solver_opt_int(s, "group_max", &gmax, e)))
        return rc;
    if (gmax < 1 || gmax > 100000)
        return err_set(e, ERR_USAGE, "fastsa: group_max=%lld: expected 1..100000", gmax);
    prm.group_max = (int)gmax;
    const char *gr = solver_opt_str(s, "grouping");
    if (strcmp(gr, "on") == 0)
        prm.grouping = 1;
    else if (strcmp(gr, "off") == 0)
        prm.grouping = 0;
    else
        return err_set(e, ERR_USAGE, "fastsa: grouping=%s: expected on or off", gr);
    const char *la = solver_opt_str(s, "logaddexp");
    if (strcmp(la, "on") == 0)
        prm.logaddexp = 1;
    else if (strcmp(la, "off") == 0)
        prm.logaddexp = 0;
    else
        return err_set(e, ERR_USAGE, "fastsa: logaddexp=%s: expected on or off", la);
    prm.slack = (int)slack;
    prm.seed = (uint64_t)seed;
    FastSA *st = xcalloc(1, sizeof *st);
    st->prm = prm;
    units_plain(&st->U, s->g);
    s->state = st;
    return ERR_OK;
}

/* Lay units[0..L) over the slots (evenly, slack nops per step) through
 * apply_add, so every interval is built by the same code the mutations
 * use. The order must be valid. */
static void state_load(State *S, const int *units, int L)
{
    for (int i = 0; i < L; i++) {
        int t = (int)(((int64_t)i * S->T) / L);
        apply_add(S, units[i], t);
    }
}

/* Graph nodes -> their single-node units, in place. */
static void to_units(const Units *U, int *order, int L)
{
    for (int i = 0; i < L; i++)
        order[i] = U->unit_of[order[i]];
}

static int slots_for(int L, int slack)
{
    int64_t want = (int64_t)L * slack;
    int T = 1;
    while (T < want)
        T <<= 1;
    return T;
}

/* Graph-node schedule of the best snapshot of a run (or the state). */
static int *decode(const State *S, const int *seq, int *L)
{
    int n = 0;
    for (int t = 0; t < S->T; t++)
        if (seq[t] >= 0)
            n += S->U->u[seq[t]].n_mem;
    int *out = xmallocarray((size_t)n + 1, sizeof *out);
    n = 0;
    for (int t = 0; t < S->T; t++)
        if (seq[t] >= 0)
            for (int k = 0; k < S->U->u[seq[t]].n_mem; k++)
                out[n++] = S->U->u[seq[t]].mem[k];
    *L = n;
    return out;
}

static void run_init(Run *r, const State *S, int64_t budget)
{
    memset(r, 0, sizeof *r);
    r->M = state_peak(S);
    r->budget = budget;
    r->ceps = S->cost > 0 ? S->cost * 1e-9 : 1;
    r->f = objective(r, state_obj_peak(S), S->cost);
}

/* Temperature reached after `done` of `n` steps of a schedule h0 -> h1. */
static double temp_at(double h0, double h1, long long done, long long n)
{
    double frac = n > 0 ? (double)done / (double)n : 1;
    return h0 * exp(log(h1 / h0) * (frac < 1 ? frac : 1));
}

/* Anneal from order[0..L) (graph nodes) and write the best schedule to
 * out. Stage 1 (grouping=on): grouped units until the budget is met under
 * the group model. Stage 2: single nodes, exact, until the budget is met.
 * Stage 3: a cooler pass that removes redundant work and never leaves the
 * budget once it is met. */
static int fastsa_run(Solver *s, int64_t budget, const int *order_in, int L, int group,
                      Plan *out, Progress *p, Err *e)
{
    FastSA *fs = s->state;
    const Params *prm = &fs->prm;
    fs->last_tried = 0;
    if (L == 0)
        return ERR_OK;
    double t0 = now_s(), end = t0 + prm->time_limit;
    Rng rng = {prm->seed * 0x2545f4914f6cdd1dull + 1};
    int *order = xmallocarray((size_t)L, sizeof *order);
    memcpy(order, order_in, (size_t)L * sizeof *order);
    int rc = ERR_OK;
    long long n;
    double h0 = 0, h1 = 0;
    Run r;
    State S;
    if (budget == PLAN_NO_BUDGET) {
        int64_t bp;
        double bc;
        sim_baseline(s->g, &bp, &bc);
        budget = bp;
    }
    if (group) {
        Units G;
        int *gseq, gL;
        units_grouped(&G, s->g, order, L, prm->group_max, &gseq, &gL);
        state_init(&S, &G, slots_for(gL, prm->slack));
        if (prm->logaddexp)
            state_smooth(&S, (double)budget / 256);
        state_load(&S, gseq, gL);
        free(gseq);
        run_init(&r, &S, budget);
        h0 = 1e-3 * r.f;
        h1 = 1e-4 * h0;
        n = anneal(&r, &S, &rng, prm->iters, h0, h1, t0, t0 + 0.6 * prm->time_limit, 1, p);
        if (n >= 0) {
            fs->last_tried += n;
            maybe_snapshot(&r, &S);
            free(order);
            order = decode(&S, r.best_seq, &L);
            h0 = temp_at(h0, h1, n, prm->iters) * 1e-1;
        }
        free(r.best_seq);
        state_done(&S);
        units_done(&G);
        if (n < 0) {
            free(order);
            return err_set(e, ERR_CANCELLED, "fastsa: cancelled");
        }
    }
    to_units(&fs->U, order, L);
    state_init(&S, &fs->U, slots_for(L, prm->slack));
    if (prm->logaddexp)
        state_smooth(&S, (double)budget / 256);
    state_load(&S, order, L);
    free(order);
    run_init(&r, &S, budget);
    if (!group)
        h0 = 1e-3 * r.f;
    h1 = 1e-4 * h0;
    n = anneal(&r, &S, &rng, prm->iters, h0, h1, now_s(), t0 + 0.8 * prm->time_limit, 1, p);
    if (n < 0) {
        rc = err_set(e, ERR_CANCELLED, "fastsa: cancelled");
        goto done;
    }
    fs->last_tried += n;
    maybe_snapshot(&r, &S);
    r.feasible_only = r.M <= r.budget;
    double g0 = temp_at(h0, h1, n, prm->iters);
    if (g0 > h0 * 1e-2)
        g0 = h0 * 1e-2;
    n = anneal(&r, &S, &rng, prm->iters / 10 + 1, g0, g0 * 1e-4, now_s(), end, 0, p);
    if (n < 0) {
        rc = err_set(e, ERR_CANCELLED, "fastsa: cancelled");
        goto done;
    }
    fs->last_tried += n;
    maybe_snapshot(&r, &S);
    int T;
    int *sched = decode(&S, r.best_seq, &T);
    for (int t = 0; t < T; t++)
        plan_push(out, sched[t]);
    free(sched);
    progress_set(p, 1.0);
done:
    free(r.best_seq);
    state_done(&S);
    return rc;
}

static int s_group(const Solver *s)
{
    const FastSA *fs = s->state;
    return fs->prm.grouping;
}

static int fastsa_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    int L;
    int *order = sim_baseline_order(s->g, &L);
    int rc = fastsa_run(s, budget, order, L, s_group(s), out, p, e);
    free(order);
    Sim sim;
    Err e2;
    if (rc == ERR_OK && budget != PLAN_NO_BUDGET &&
        sim_run(s->g, out->steps, out->T, &sim, &e2) == ERR_OK) {
        FastSA *fs = s->state;
        if (sim.peak > budget && (!fs->missed_floor || sim.peak < fs->missed_floor))
            fs->missed_floor = sim.peak;
        sim_done(&sim);
    }
    return rc;
}

static int fastsa_resolve(Solver *s, int64_t budget, const Plan *prev, Plan *out, Progress *p,
                          Err *e)
{
    Sim sim;
    Err e2;
    if (!prev || prev->T == 0 || sim_run(s->g, prev->steps, prev->T, &sim, &e2) != ERR_OK)
        return fastsa_solve(s, budget, out, p, e);
    sim_done(&sim);
    /* a nearby budget from a good plan needs only a short anneal: keep the
     * slider responsive, and fall back to a full run below if it misses */
    FastSA *fs = s->state;
    double full = fs->prm.time_limit;
    fs->prm.time_limit = fs->prm.resolve_time < full ? fs->prm.resolve_time : full;
    int rc = fastsa_run(s, budget, prev->steps, prev->T, 0, out, p, e);
    fs->prm.time_limit = full;
    if (rc != ERR_OK || budget == PLAN_NO_BUDGET)
        return rc;
    /* the short warm start cannot group (its order repeats nodes) and has
     * little time; when it misses the budget, a full run from scratch may
     * still meet it */
    if (sim_run(s->g, out->steps, out->T, &sim, &e2) == ERR_OK) {
        int64_t pk = sim.peak;
        sim_done(&sim);
        if (pk <= budget)
            return rc;
    }
    if (fs->missed_floor && budget < fs->missed_floor)
        return rc;   /* a full search already failed to get this low */
    Plan cold;
    plan_init(&cold);
    long long tried = ((FastSA *)s->state)->last_tried;
    rc = fastsa_solve(s, budget, &cold, p, e);
    ((FastSA *)s->state)->last_tried += tried;
    if (rc == ERR_OK && sim_run(s->g, cold.steps, cold.T, &sim, &e2) == ERR_OK) {
        if (sim.peak <= budget) {
            plan_reset(out);
            for (int t = 0; t < cold.T; t++)
                plan_push(out, cold.steps[t]);
        }
        sim_done(&sim);
    }
    plan_done(&cold);
    return rc;
}

static void fastsa_release(Solver *s)
{
    FastSA *fs = s->state;
    if (fs)
        units_done(&fs->U);
    free(fs);
}

void fastsa_random_walk(const Graph *g, int steps, uint64_t seed, int slack, int **sched, int *T,
                        int64_t **mem, int64_t *peak)
{
    Units U;
    units_plain(&U, g);
    int L;
    int *order = sim_baseline_order(g, &L);
    State S;
    to_units(&U, order, L);
    state_init(&S, &U, slots_for(L > 0 ? L : 1, slack));
    state_load(&S, order, L);
    free(order);
    Rng rng = {seed};
    for (int i = 0; i < steps && U.n_units > 0; i++) {
        int kind = rng_below(&rng, 3);
        if (kind == 0) {
            int t = pick_slot(&S, &rng, 1), u = rng_below(&rng, U.n_units);
            if (t >= 0 && can_add(&S, u, t))
                apply_add(&S, u, t);
        } else if (kind == 1) {
            int t = pick_slot(&S, &rng, 0);
            if (t >= 0 && can_remove(&S, t))
                apply_remove(&S, t);
        } else {
            int t1 = pick_slot(&S, &rng, 0), t2 = pick_slot(&S, &rng, 1);
            if (t1 < 0 || t2 < 0)
                continue;
            int u = S.seq[t1];
            if (!can_add(&S, u, t2))
                continue;
            apply_add(&S, u, t2);
            if (can_remove(&S, t1))
                apply_remove(&S, t1);
            else
                apply_remove(&S, t2);
        }
    }
    int n = 0;
    *sched = xmallocarray((size_t)S.count + 1, sizeof **sched);
    *mem = xmallocarray((size_t)S.count + 1, sizeof **mem);
    for (int t = 0; t < S.T; t++)
        if (S.seq[t] >= 0) {
            (*sched)[n] = U.u[S.seq[t]].mem[0];
            (*mem)[n++] = segtree_max(&S.st, t, t) + g->input_bytes;
        }
    *T = n;
    *peak = state_peak(&S);
    state_done(&S);
    units_done(&U);
}

long long fastsa_last_tried(const Solver *s)
{
    const FastSA *fs = s->state;
    return fs ? fs->last_tried : 0;
}

const SolverClass solver_fastsa = {
    .name = "fastsa",
    .title = "FastSA: simulated annealing over a slotted sequence, peak kept by a segment tree",
    .caps = SOLVER_INCREMENTAL,
    .params = params,
    .prepare = fastsa_prepare,
    .solve = fastsa_solve,
    .resolve = fastsa_resolve,
    .release = fastsa_release,
};
