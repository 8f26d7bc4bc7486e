/* anneal.c — the annealing loop (see anneal.h).
 *
 * Proposals, each undone when the objective rejects it:
 *  - add: a unit at a nop slot; four times in seven aimed where it can help,
 *    right before a step that reads its value (between that value's last
 *    production and the read), else anywhere;
 *  - remove: the unit at an occupied slot;
 *  - move: an occupied slot's unit to a nop slot, inside its dependency
 *    window (after its inputs are made, before its value is next read),
 *    nearby, or anywhere.
 * Occupied slots are kept in a list, so picking one is O(1) however many
 * nops there are.
 */
#include "solvers/fastsa/anneal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/clock.h"
#include "src/base/xalloc.h"

/* r^wall, by squarings for a whole exponent (the default 10): pow() had
 * been a few per cent of a run. */
static inline double wall_pow(double r, double wall)
{
    int w = (int)wall;
    if ((double)w != wall || w < 1 || w > 64)
        return pow(r, wall);
    double x = 1, b = r;
    for (; w; w >>= 1, b *= b)
        if (w & 1)
            x *= b;
    return x;
}

/* c^0.6, remembered for the last two costs: a move keeps the cost, and an
 * add or remove that is undone comes back to it. */
static inline double cost_pow(const Anneal *A, double c)
{
    Anneal *m = (Anneal *)A;   /* a cache only: the objective stays a function of (M, C) */
    if (c == m->pc[0])
        return m->pv[0];
    if (c == m->pc[1])
        return m->pv[1];
    double v = exp(0.6 * log(c));
    m->pc[1] = m->pc[0];
    m->pv[1] = m->pv[0];
    m->pc[0] = c;
    m->pv[0] = v;
    return v;
}

double anneal_objective(const Anneal *A, int64_t M, double C)
{
    double B = (double)A->budget, c = C + A->ceps;
    if (A->obj == OBJ_ELU) {
        /* footnote 2: above the budget the peak itself (raised to the
         * power `wall`: 1 is the paper's form, higher makes every byte over
         * the budget dearer than the recomputations that save it); below
         * it a soft floor that still rewards slack, so a strict budget is
         * kept with room to drop recomputations later */
        double r = (double)M / B;
        double m = r > 1 ? wall_pow(r, A->wall) : 1.0 + expm1(100.0 * (r - 1.0)) / 100.0;
        return B * m * cost_pow(A, c);
    }
    double m = (double)(M > A->budget ? M : A->budget);
    return m * c;
}

/* The highest peak whose objective at cost C stays below fmax, or -1 when
 * none does: anneal_objective inverted in M (it rises with M). Rounding
 * can put it a byte off the exact inverse; the state's own objective is
 * still computed from the real peak once a mutation is made. */
static int64_t peak_within(const Anneal *A, double fmax, double C)
{
    double B = (double)A->budget, c = C + A->ceps, r;
    if (fmax >= HUGE_VAL)
        return INT64_MAX / 4;
    if (A->obj == OBJ_ELU) {
        double m = fmax / (B * cost_pow(A, c));
        if (m >= 1)
            r = A->wall == 1 ? m : pow(m, 1 / A->wall);
        else if (100.0 * (m - 1.0) > -1.0)
            r = 1.0 + log1p(100.0 * (m - 1.0)) / 100.0;
        else
            return -1;
    } else {
        double q = fmax / c;
        if (q < B)
            return -1;
        r = q / B;
    }
    double M = floor(r * B);
    return M >= (double)(INT64_MAX / 4) ? INT64_MAX / 4 : (int64_t)M;
}

/* Keep S as the best: only the slots changed since the last snapshot are
 * copied (a whole copy of the sequence per improvement had been a sixth
 * of a run's time on an 8K-node graph). */
static void snapshot(Anneal *A, State *S, int fits, int64_t M)
{
    state_journal_apply(S, A->best_seq);
    A->best_fits = fits;
    A->best_M = M;
    A->best_C = S->cost;
    A->since_best = 0;
}

/* Keep S if it beats the best: fitting beats not fitting; among fitting
 * plans the cheaper, among the others the lower peak, then the cheaper. */
static void consider(Anneal *A, State *S)
{
    int64_t M = state_peak(S);
    int fits = M <= A->budget;
    int better = fits > A->best_fits ||
                 (fits == A->best_fits &&
                  (fits ? S->cost < A->best_C
                        : (M < A->best_M || (M == A->best_M && S->cost < A->best_C))));
    if (better)
        snapshot(A, S, fits, M);
}

void anneal_init(Anneal *A, State *S, int64_t budget, int obj, double wall,
                 const unsigned char *rule)
{
    memset(A, 0, sizeof *A);
    A->budget = budget;
    A->obj = obj;
    A->wall = wall;
    A->rule = rule;
    A->ceps = S->cost > 0 ? S->cost * 1e-9 : 1;
    A->f = anneal_objective(A, state_obj_peak(S), S->cost);
    A->best_seq = xmallocarray((size_t)S->T, sizeof *A->best_seq);
    S->jover = 1;   /* the first snapshot copies the whole sequence */
    int64_t M = state_peak(S);
    snapshot(A, S, M <= budget, M);
}

void anneal_done(Anneal *A)
{
    free(A->best_seq);
    A->best_seq = NULL;
}

void anneal_restore_best(const Anneal *A, State *S)
{
    for (int i = S->count - 1; i >= 0; i--)
        state_remove(S, S->occ[i]);
    /* readers before producers would fail can_add; adding in slot order
     * rebuilds every interval through the same code as the mutations */
    for (int t = 0; t < S->T; t++)
        if (A->best_seq[t] >= 0)
            state_add(S, A->best_seq[t], t);
}

/* A mutation was kept and the state's objective is now f. A fitting plan
 * cheaper than the best is snapshotted at once (those are rare and are the
 * answer); other bests are caught by the periodic check. */
static inline void take(Anneal *A, State *S, double f)
{
    A->f = f;
    if (!A->best_fits || S->cost < A->best_C) {
        int64_t M = state_peak(S);
        if (M <= A->budget)
            snapshot(A, S, 1, M);
    }
}

/* Accept or undo: returns 1 to keep the mutation. u: the uniform draw
 * made before the mutation (pre_judge), or -1 to draw one here when
 * needed. */
static inline int judge(Anneal *A, State *S, Rng *rng, double temp, double u)
{
    double f = anneal_objective(A, state_obj_peak(S), S->cost);
    double d = f - A->f;
    if (d > 0 && !((u >= 0 ? u : rng_unit(rng)) < exp(-d / temp)))
        return 0;
    take(A, S, f);
    return 1;
}

/* The highest peak a mutation to cost C may leave to be accepted at
 * temperature temp: the uniform draw made first, the test f < f0 - temp *
 * log(u) turned into a test on the peak (peak_within), so the mutation is
 * judged before it is made (state_delta_fits) and a rejected one costs no
 * make and undo. The same acceptance as judge's: exp(-d / temp) > u. */
static inline int64_t accept_limit(const Anneal *A, Rng *rng, double temp, double C)
{
    double u = rng_unit(rng);
    return peak_within(A, u > 0 ? A->f - temp * log(u) : HUGE_VAL, C);
}

/* A mutation judged by accept_limit was made: its objective from the real
 * peak (take). */
static inline void accepted(Anneal *A, State *S)
{
    take(A, S, anneal_objective(A, state_peak(S), S->cost));
}

/* Before a mutation that changes the cost by dc and can lower the memory
 * at any slot by at most `drop` bytes: its objective is at least that of
 * the peak lowered by `drop` at the new cost, and when even that is worse
 * than the current one the acceptance test can be drawn now. Returns 0
 * when the mutation would be rejected whatever the new peak (no state
 * touched: most proposals at a low temperature, an add that costs more
 * and cannot lower the peak enough); else 1, with *u the draw judge must
 * use (-1: judge draws if it needs to). The draws and decisions are the
 * ones judge alone would make. */
static inline int pre_judge(const Anneal *A, const State *S, Rng *rng, double temp, double dc,
                            int64_t drop, double *u)
{
    *u = -1;
    if (S->lae)
        return 1;
    int64_t M = state_peak(S) - drop;
    double d = anneal_objective(A, M, S->cost + dc) - A->f;
    if (d <= 0)
        return 1;
    *u = rng_unit(rng);
    return *u < exp(-d / temp);
}

/* Most bytes an add of unit u can free at any slot (the copy it cuts
 * short), and a remove (that copy, the reads it held, its workspace). */
static inline int64_t add_drop(const Units *U, const Unit *x)
{
    int64_t m = 0;
    for (int k = 0; k < x->n_out; k++)
        m += U->vsize[x->out[k]];
    return m;
}

static inline int64_t remove_drop(const Units *U, const Unit *x)
{
    int64_t m = add_drop(U, x) + x->ws;
    for (int k = 0; k < x->n_in; k++)
        m += U->vsize[x->in[k]];
    return m;
}

static inline int pick_nop(const State *S, Rng *rng)
{
    for (int k = 0; k < 16; k++) {
        int t = rng_below(rng, S->T);
        if (S->seq[t] < 0)
            return t;
    }
    return -1;
}

static inline int pick_occupied(const State *S, Rng *rng)
{
    return S->count ? S->occ[rng_below(rng, S->count)] : -1;
}

/* A nop slot in [lo, hi], or -1 after a few tries. */
static inline int pick_nop_in(const State *S, Rng *rng, int lo, int hi)
{
    if (lo < 0)
        lo = 0;
    if (hi > S->T - 1)
        hi = S->T - 1;
    if (lo > hi)
        return -1;
    for (int k = 0; k < 4; k++) {
        int t = lo + rng_below(rng, hi - lo + 1);
        if (S->seq[t] < 0)
            return t;
    }
    return -1;
}

/* A unit and slot for an aimed add: a value read at some occupied slot r,
 * recomputed between its last production before r and r. */
static int aim_add(const State *S, Rng *rng, int *tout)
{
    int r = pick_occupied(S, rng);
    if (r < 0)
        return -1;
    const Unit *x = &S->U->u[S->seq[r]];
    if (!x->n_in)
        return -1;
    int v = x->in[rng_below(rng, x->n_in)];
    int u = S->U->unit_of[v];
    if (u < 0)
        return -1;
    int a = state_prod_before(S, v, r);
    int t = pick_nop_in(S, rng, a + 1, r - 1);
    if (t < 0)
        return -1;
    *tout = t;
    return u;
}

/* Most recomputations an aimed add brings along (chain_inputs). */
#define CHAIN_MAX 3

/* A recomputation of unit cu[0] at ct[0] holds its inputs' copies until
 * ct[0]; recomputing one of those inputs too, just before, frees the copy
 * instead (attention scores before the softmax run again in the backward,
 * a convolution before its batch norm). Each such step alone costs a run
 * and saves nothing, so the annealing rarely takes the first one when it
 * is cool; a chain proposed as one mutation is judged by what it saves in
 * all. Appends up to `depth` units and their slots (each a nop slot
 * shortly before the one it serves, after the input's last production);
 * returns how many. */
static int chain_inputs(const Anneal *A, const State *S, Rng *rng, int *cu, int *ct, int depth)
{
    const Units *U = S->U;
    int n = 0;
    for (int d = 0; d < depth; d++) {
        const Unit *x = &U->u[cu[d]];
        if (!x->n_in)
            break;
        int w = x->in[rng_below(rng, x->n_in)];
        int uw = U->unit_of[w];
        if (uw < 0 || (A->rule && A->rule[w] == NODE_PIN))
            break;
        int a = state_prod_before(S, w, ct[d]);
        if (a < 0)
            break;
        int lo = a + 1 > ct[d] - 64 ? a + 1 : ct[d] - 64;
        int t = pick_nop_in(S, rng, lo, ct[d] - 1);
        if (t < 0)
            break;
        cu[d + 1] = uw;
        ct[d + 1] = t;
        n++;
    }
    return n;
}

/* The slots a move of the unit at t1 may target without breaking a
 * dependency: after its inputs' productions, before its values' next
 * reads. */
static void move_window(const State *S, int t1, int *lo, int *hi)
{
    const Unit *x = &S->U->u[S->seq[t1]];
    int a = -1, b = S->T;
    for (int k = 0; k < x->n_in; k++) {
        int p = state_prod_before(S, x->in[k], t1);
        a = p > a ? p : a;
    }
    for (int k = 0; k < x->n_out; k++) {
        const ISet *R = &S->R[x->out[k]];
        int lo2 = 0, hi2 = R->n;
        while (lo2 < hi2) {
            int mid = (lo2 + hi2) >> 1;
            if (R->a[mid] <= t1)
                lo2 = mid + 1;
            else
                hi2 = mid;
        }
        if (lo2 < R->n && R->a[lo2] < b)
            b = R->a[lo2];
    }
    *lo = a + 1;
    *hi = b - 1;
}

static inline int rule_of(const Anneal *A, const State *S, int u)
{
    return A->rule ? A->rule[S->U->u[u].out[0]] : NODE_FREE;
}

/* Seconds between a run's offers of its best (Anneal.tick): runs last
 * seconds on large graphs, and the explorer shows what a solve has found
 * so far. */
#define TICK_SECONDS 0.2

long long anneal_run(Anneal *A, State *S, Rng *rng, long long n, double h0, double h1,
                     double deadline, int stop_at_budget, long long stall, Progress *p)
{
    const Units *U = S->U;
    double t0 = clock_now(), temp = h0, span = deadline - t0;
    A->f = anneal_objective(A, state_obj_peak(S), S->cost);
    /* The temperature scales with the objective: h0 and h1 are meant for
     * the objective the run starts from, and a run that starts far over
     * the budget (the wall's power makes that objective millions of times
     * the one at the budget) would otherwise walk at random once near it:
     * the run from the graph's order at 25 % never met the budget on the
     * 1K-node joint graphs of bench_paper. An uphill step is judged by
     * its share of the current objective, as on log f. */
    double f_ref = A->f > 0 ? A->f : 1, next_tick = t0 + TICK_SECONDS;
    long long it;
    for (it = 0; it < n; it++) {
        if ((it & 1023) == 0) {
            if (progress_cancelled(p))
                return -1;
            double t = clock_now();
            if (t >= deadline)
                break;
            double frac = (double)it / (double)n, ft = span > 0 ? (t - t0) / span : 1;
            if (ft > frac)
                frac = ft;
            temp = h0 * exp(log(h1 / h0) * frac);
            consider(A, S);
            if (A->tick && A->best_fits && t >= next_tick) {
                A->tick(A->tick_ctx, A, S);
                next_tick = t + TICK_SECONDS;
                if (A->stop)
                    break;
            }
            if (stop_at_budget && A->best_fits)
                break;
            /* stalling only counts once the run has cooled halfway: a hot
             * start wanders without improving by design */
            if (stall && frac > 0.5 && A->since_best > stall)
                break;
        }
        A->since_best++;
        double tk = temp * (A->f / f_ref);
        int kind = rng_below(rng, 20);
        if (kind < 7) {                 /* add a recomputation */
            int t = -1, u;
            if (kind < 4)
                u = aim_add(S, rng, &t);
            else {
                t = pick_nop(S, rng);
                u = rng_below(rng, U->n_units);
            }
            if (u < 0 || t < 0 || !state_can_add(S, u, t))
                continue;
            if (rule_of(A, S, u) == NODE_PIN && S->P[U->u[u].out[0]].n > 0)
                continue;
            int cu[CHAIN_MAX + 1], ct[CHAIN_MAX + 1], nc = 1;
            cu[0] = u;
            ct[0] = t;
            if (kind < 2)
                nc += chain_inputs(A, S, rng, cu, ct, 1 + rng_below(rng, CHAIN_MAX));
            double dc = 0, pu;
            int64_t drop = 0;
            for (int i = 0; i < nc; i++) {
                dc += U->u[cu[i]].cost;
                drop += add_drop(U, &U->u[cu[i]]);
            }
            if (!S->lae) {
                /* judged before it is made: most adds are rejected. A
                 * chain's first members are made and its last judged
                 * before it is, so a rejected chain undoes one fewer */
                int64_t lim = accept_limit(A, rng, tk, S->cost + dc);
                if (lim < state_peak(S) - drop)
                    continue;
                for (int i = 0; i + 1 < nc; i++)
                    state_add(S, cu[i], ct[i]);
                state_add_delta(S, cu[nc - 1], ct[nc - 1], &S->scratch);
                if (!state_delta_fits(S, &S->scratch, lim)) {
                    for (int i = nc - 2; i >= 0; i--)
                        state_remove(S, ct[i]);
                    continue;
                }
                state_add_with(S, cu[nc - 1], ct[nc - 1], &S->scratch);
                accepted(A, S);
                continue;
            }
            if (!pre_judge(A, S, rng, tk, dc, drop, &pu))
                continue;
            for (int i = 0; i < nc; i++)
                state_add(S, cu[i], ct[i]);
            if (!judge(A, S, rng, tk, pu))
                for (int i = nc - 1; i >= 0; i--)
                    state_remove(S, ct[i]);
        } else if (kind < 12) {         /* remove one */
            int t = pick_occupied(S, rng);
            if (t < 0 || !state_can_remove(S, t))
                continue;
            int u = S->seq[t];
            if (rule_of(A, S, u) == NODE_FORCE && S->P[U->u[u].out[0]].n <= 2)
                continue;
            double pu;
            if (!S->lae) {
                int64_t lim = accept_limit(A, rng, tk, S->cost - U->u[u].cost);
                if (lim < state_peak(S) - remove_drop(U, &U->u[u]))
                    continue;
                state_remove_delta(S, t, &S->scratch);
                if (!state_delta_fits(S, &S->scratch, lim))
                    continue;
                state_remove_with(S, t, &S->scratch);
                accepted(A, S);
                continue;
            }
            if (!pre_judge(A, S, rng, tk, -U->u[u].cost, remove_drop(U, &U->u[u]), &pu))
                continue;
            state_remove(S, t);
            if (!judge(A, S, rng, tk, pu))
                state_add(S, u, t);
        } else {                        /* move one */
            int t1 = pick_occupied(S, rng), t2;
            if (t1 < 0)
                continue;
            if (kind < 17) {
                int lo, hi;
                move_window(S, t1, &lo, &hi);
                t2 = pick_nop_in(S, rng, lo, hi);
            } else if (kind < 19) {
                t2 = pick_nop_in(S, rng, t1 - 16, t1 + 16);
            } else {
                t2 = pick_nop(S, rng);
            }
            if (t2 < 0)
                continue;
            int u = S->seq[t1];
            /* a local move shifts intervals in place (state_move); the rest
             * is an add and a remove, with the same outcome */
            if (state_move(S, t1, t2)) {
                if (!judge(A, S, rng, tk, -1) && !state_move(S, t2, t1)) {
                    state_add(S, u, t1);
                    state_remove(S, t2);
                }
                continue;
            }
            if (!state_can_add(S, u, t2))
                continue;
            state_add(S, u, t2);
            if (!state_can_remove(S, t1)) {
                state_remove(S, t2);
                continue;
            }
            if (!S->lae) {
                /* made half way: the remove judged before it is made */
                int64_t lim = accept_limit(A, rng, tk, S->cost - U->u[u].cost);
                state_remove_delta(S, t1, &S->scratch);
                if (!state_delta_fits(S, &S->scratch, lim)) {
                    state_remove(S, t2);
                    continue;
                }
                state_remove_with(S, t1, &S->scratch);
                accepted(A, S);
                continue;
            }
            state_remove(S, t1);
            if (!judge(A, S, rng, tk, -1)) {
                state_add(S, u, t1);
                state_remove(S, t2);
            }
        }
    }
    consider(A, S);
    A->tried += it;
    return it;
}
