/* fastsa.c — FastSA (Imanishi et al. 2023): simulated annealing over a
 * fixed-length sequence of T = 2^k slots, most of them nop. Mutations add a
 * recomputation, remove one, or move one to another slot; each is checked
 * against per-value sorted production/use times and applied by updating the
 * life intervals of the values it touches in a range-add/range-max segment
 * tree, so the peak of the spec's memory curve is known after every step.
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
    {"iters", "20000000", "most mutations tried in the first stage (the second gets a tenth)"},
    {"time_limit", "2", "seconds for the whole search"},
    {"slack", "4", "slots per step of the initial order (the rest start as nop)"},
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
} State;

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
        segtree_add(&S->st, e0 + 1, e1, sz);
    else if (e1 < e0)
        segtree_add(&S->st, e1 + 1, e0, -sz);
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
        segtree_add(&S->st, t, held_end(S, v, t), sz[v]);
    }
    for (int k = 0; k < x->n_in; k++) {
        int v = x->in[k];
        int a = prod_before(S, v, t), e0 = held_end(S, v, a);
        iset_insert(&S->R[v], t);
        adjust(S, a, e0, held_end(S, v, a), sz[v]);
    }
    if (x->ws)
        segtree_add(&S->st, t, t, x->ws);
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
        int v = x->in[k];
        int a = prod_before(S, v, t), e0 = held_end(S, v, a);
        iset_erase(&S->R[v], t);
        adjust(S, a, e0, held_end(S, v, a), sz[v]);
    }
    for (int k = 0; k < x->n_out; k++) {
        int v = x->out[k];
        int a = prod_before(S, v, t), e0 = a >= 0 ? held_end(S, v, a) : 0;
        segtree_add(&S->st, t, held_end(S, v, t), -sz[v]);
        iset_erase(&S->P[v], t);
        if (a >= 0)
            adjust(S, a, e0, held_end(S, v, a), sz[v]);
    }
    if (x->ws)
        segtree_add(&S->st, t, t, -x->ws);
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
}

/* Peak of the spec's memory curve for the current sequence. */
static inline int64_t state_peak(const State *S)
{
    int64_t m = segtree_top(&S->st);
    return (m > 0 ? m : 0) + S->U->g->input_bytes;
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
    int slack;
    uint64_t seed;
} Params;

typedef struct {
    Units U;
    Params prm;
    long long last_tried;   /* mutations tried by the last solve (benchmarks) */
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
    double f = objective(r, M, S->cost);
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
        (rc = solver_opt_int(s, "slack", &slack, e)))
        return rc;
    if (prm.iters < 0)
        return err_set(e, ERR_USAGE, "fastsa: iters=%lld: must be >= 0", prm.iters);
    if (!(prm.time_limit > 0))
        return err_set(e, ERR_USAGE, "fastsa: time_limit must be > 0 seconds");
    if (slack < 1 || slack > 64)
        return err_set(e, ERR_USAGE, "fastsa: slack=%lld: expected 1..64", slack);
    prm.slack = (int)slack;
    prm.seed = (uint64_t)seed;
    FastSA *st = xcalloc(1, sizeof *st);
    st->prm = prm;
    units_plain(&st->U, s->g);
    s->state = st;
    return ERR_OK;
}

/* Lay order[0..L) over the slots (evenly, slack nops per step) through
 * apply_add, so every interval is built by the same code the mutations
 * use. The order must be valid. */
static void state_load(State *S, const int *order, int L)
{
    for (int i = 0; i < L; i++) {
        int t = (int)(((int64_t)i * S->T) / L);
        apply_add(S, S->U->unit_of[order[i]], t);
    }
}

static int slots_for(int L, int slack)
{
    int64_t want = (int64_t)L * slack;
    int T = 1;
    while (T < want)
        T <<= 1;
    return T;
}

/* Anneal from order[0..L) and write the best schedule to out. */
static int fastsa_run(Solver *s, int64_t budget, const int *order, int L, Plan *out, Progress *p,
                      Err *e)
{
    FastSA *fs = s->state;
    const Params *prm = &fs->prm;
    fs->last_tried = 0;
    if (L == 0)
        return ERR_OK;
    double t0 = now_s();
    State S;
    state_init(&S, &fs->U, slots_for(L, prm->slack));
    state_load(&S, order, L);
    Run r;
    memset(&r, 0, sizeof r);
    r.M = state_peak(&S);
    r.budget = budget == PLAN_NO_BUDGET ? r.M : budget;
    r.ceps = S.cost > 0 ? S.cost * 1e-9 : 1;
    r.f = objective(&r, r.M, S.cost);
    Rng rng = {prm->seed * 0x2545f4914f6cdd1dull + 1};
    double h0 = 1e-3 * r.f, h1 = 1e-4 * h0;
    double end = t0 + prm->time_limit;
    long long n1 = anneal(&r, &S, &rng, prm->iters, h0, h1, t0, t0 + 0.8 * prm->time_limit, 1, p);
    int rc = ERR_OK;
    if (n1 < 0) {
        rc = err_set(e, ERR_CANCELLED, "fastsa: cancelled");
        goto done;
    }
    fs->last_tried = n1;
    /* second stage: remove redundant work at low temperature, never leaving
     * the budget once it is met */
    maybe_snapshot(&r, &S);
    r.feasible_only = r.M <= r.budget;
    double g0 = h0 * exp(log(h1 / h0) * ((double)n1 / (double)(prm->iters ? prm->iters : 1)));
    if (g0 > h0 * 1e-2)
        g0 = h0 * 1e-2;
    long long n2 = anneal(&r, &S, &rng, prm->iters / 10 + 1, g0, g0 * 1e-4, now_s(), end, 0, p);
    if (n2 < 0) {
        rc = err_set(e, ERR_CANCELLED, "fastsa: cancelled");
        goto done;
    }
    fs->last_tried += n2;
    maybe_snapshot(&r, &S);
    for (int t = 0; t < S.T; t++) {
        int u = r.best_seq[t];
        if (u < 0)
            continue;
        for (int k = 0; k < fs->U.u[u].n_mem; k++)
            plan_push(out, fs->U.u[u].mem[k]);
    }
    progress_set(p, 1.0);
done:
    free(r.best_seq);
    state_done(&S);
    return rc;
}

static int fastsa_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    int L;
    int *order = sim_baseline_order(s->g, &L);
    int rc = fastsa_run(s, budget, order, L, out, p, e);
    free(order);
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
    return fastsa_run(s, budget, prev->steps, prev->T, out, p, e);
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
