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
        double m = r > 1 ? (A->wall == 1 ? r : pow(r, A->wall)) : 1.0 + expm1(100.0 * (r - 1.0)) / 100.0;
        return B * m * exp(0.6 * log(c));
    }
    double m = (double)(M > A->budget ? M : A->budget);
    return m * c;
}

static void snapshot(Anneal *A, const State *S, int fits, int64_t M)
{
    memcpy(A->best_seq, S->seq, (size_t)S->T * sizeof *S->seq);
    A->best_fits = fits;
    A->best_M = M;
    A->best_C = S->cost;
    A->since_best = 0;
}

/* Keep S if it beats the best: fitting beats not fitting; among fitting
 * plans the cheaper, among the others the lower peak, then the cheaper. */
static void consider(Anneal *A, const State *S)
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

void anneal_init(Anneal *A, const State *S, int64_t budget, int obj, double wall,
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

/* Accept or undo: returns 1 to keep the mutation. A fitting plan cheaper
 * than the best is snapshotted at once (those are rare and are the answer);
 * other bests are caught by the periodic check. */
static inline int judge(Anneal *A, State *S, Rng *rng, double temp)
{
    double f = anneal_objective(A, state_obj_peak(S), S->cost);
    double d = f - A->f;
    if (d > 0 && !(rng_unit(rng) < exp(-d / temp)))
        return 0;
    A->f = f;
    if (!A->best_fits || S->cost < A->best_C) {
        int64_t M = state_peak(S);
        if (M <= A->budget)
            snapshot(A, S, 1, M);
    }
    return 1;
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

long long anneal_run(Anneal *A, State *S, Rng *rng, long long n, double h0, double h1,
                     double deadline, int stop_at_budget, long long stall, Progress *p)
{
    const Units *U = S->U;
    double t0 = clock_now(), temp = h0, span = deadline - t0;
    A->f = anneal_objective(A, state_obj_peak(S), S->cost);
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
            if (stop_at_budget && A->best_fits)
                break;
            /* stalling only counts once the run has cooled halfway: a hot
             * start wanders without improving by design */
            if (stall && frac > 0.5 && A->since_best > stall)
                break;
        }
        A->since_best++;
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
            state_add(S, u, t);
            if (!judge(A, S, rng, temp))
                state_remove(S, t);
        } else if (kind < 12) {         /* remove one */
            int t = pick_occupied(S, rng);
            if (t < 0 || !state_can_remove(S, t))
                continue;
            int u = S->seq[t];
            if (rule_of(A, S, u) == NODE_FORCE && S->P[U->u[u].out[0]].n <= 2)
                continue;
            state_remove(S, t);
            if (!judge(A, S, rng, temp))
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
            if (!state_can_add(S, u, t2))
                continue;
            state_add(S, u, t2);
            if (!state_can_remove(S, t1)) {
                state_remove(S, t2);
                continue;
            }
            state_remove(S, t1);
            if (!judge(A, S, rng, temp)) {
                state_add(S, u, t1);
                state_remove(S, t2);
            }
        }
    }
    consider(A, S);
    A->tried += it;
    return it;
}
