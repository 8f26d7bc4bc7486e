/* chain_dp.c — the heterogeneous chain DP of chain_dp.h: a bottom-up table
 * over (stage range, memory buckets), filled by increasing range length so
 * every sub-range is ready when read. O(L^3 R) time, O(L^2 R) memory. */
#include <stdlib.h>
#include <string.h>

#include "solvers/chain/chain_dp.h"
#include "src/base/xalloc.h"

static size_t at(const ChainDP *d, int s, int t, int m)
{
    return ((size_t)s * (size_t)(d->L + 1) + (size_t)t) * (size_t)(d->R + 1) + (size_t)m;
}

/* size of the value held as the input of stage s (the chain input is
 * resident, so free) */
static int xin(const ChainDP *d, int s)
{
    return s > 0 ? d->x[s - 1] : 0;
}

double chaindp_cost(const ChainDP *d, int s, int t, int m)
{
    if (s < 0 || t > d->L || s >= t || m < 0)
        return CHAIN_DP_INF;
    if (m > d->R)
        m = d->R;
    return d->H[at(d, s, t, m)];
}

int chaindp_build(ChainDP *d, int L, int R, const double *uf, const int *x, const int *tape,
                  int use_tape, Progress *p, Err *e)
{
    return chaindp_build_rerun(d, L, R, uf, uf, x, tape, use_tape, p, e);
}

int chaindp_build_rerun(ChainDP *d, int L, int R, const double *uf, const double *ub,
                        const int *x, const int *tape, int use_tape, Progress *p, Err *e)
{
    memset(d, 0, sizeof *d);
    d->L = L;
    d->R = R;
    d->use_tape = use_tape;
    d->uf = xmallocarray((size_t)L, sizeof *d->uf);
    d->ub = xmallocarray((size_t)L, sizeof *d->ub);
    memcpy(d->ub, ub, (size_t)L * sizeof *ub);
    d->x = xmallocarray((size_t)L, sizeof *d->x);
    d->tape = xmallocarray((size_t)L, sizeof *d->tape);
    memcpy(d->uf, uf, (size_t)L * sizeof *uf);
    memcpy(d->x, x, (size_t)L * sizeof *x);
    memcpy(d->tape, tape, (size_t)L * sizeof *tape);
    size_t cells = (size_t)(L + 1) * (size_t)(L + 1) * (size_t)(R + 1);
    d->H = xmallocarray(cells, sizeof *d->H);
    d->how = xcalloc(cells, sizeof *d->how);
    double *pre = xmallocarray((size_t)L + 1, sizeof *pre);   /* prefix sums of uf */
    pre[0] = 0;
    for (int i = 0; i < L; i++)
        pre[i + 1] = pre[i] + uf[i];
    for (int len = 1; len <= L; len++) {
        if (progress_cancelled(p)) {
            free(pre);
            chaindp_free(d);
            return err_set(e, ERR_CANCELLED, "chain DP: cancelled");
        }
        progress_set(p, (double)len / L);
        for (int s = 0; s + len <= L; s++) {
            int t = s + len, xs = xin(d, s);
            for (int m = 0; m <= R; m++) {
                double best = CHAIN_DP_INF;
                int how = CDP_BASE;
                if (m >= xs) {
                    if (len == 1) {
                        best = ub[s];
                    } else {
                        /* replay from the held input, one slot only */
                        /* (ub - uf is exactly 0 for chaindp_build: same sums as before) */
                        double v = pre[t] - pre[s] + (ub[t - 1] - uf[t - 1]) +
                                   d->H[at(d, s, t - 1, m)];
                        if (v < best) {
                            best = v;
                            how = CDP_REPLAY;
                        }
                        for (int r = s + 1; r < t; r++) {
                            double a = d->H[at(d, r, t, m - xs)];
                            if (a >= CHAIN_DP_INF)
                                continue;
                            v = pre[r] - pre[s] + a + d->H[at(d, s, r, m)];
                            if (v < best) {
                                best = v;
                                how = CDP_SPLIT | r << 2;
                            }
                        }
                        if (use_tape && m - xs - tape[s] >= 0) {
                            double a = d->H[at(d, s + 1, t, m - xs - tape[s])];
                            if (a < CHAIN_DP_INF && uf[s] + a < best) {
                                best = uf[s] + a;
                                how = CDP_TAPE;
                            }
                        }
                    }
                }
                d->H[at(d, s, t, m)] = best;
                d->how[at(d, s, t, m)] = how;
            }
        }
    }
    free(pre);
    return ERR_OK;
}

void chaindp_free(ChainDP *d)
{
    free(d->uf);
    free(d->ub);
    free(d->x);
    free(d->tape);
    free(d->H);
    free(d->how);
    memset(d, 0, sizeof *d);
}

typedef struct {
    int s, t, m;    /* a range to reverse; t < 0: emit the backward of s */
} Item;

int chaindp_walk(const ChainDP *d, int s, int t, int m, void (*emit)(void *, int, int),
                 void *ctx)
{
    if (chaindp_cost(d, s, t, m) >= CHAIN_DP_INF)
        return -1;
    if (m > d->R)
        m = d->R;
    /* each item pushes at most two, and ranges shrink: 2L+2 bounds the stack */
    Item *st = xmallocarray((size_t)(2 * d->L + 4), sizeof *st);
    int n = 0;
    st[n++] = (Item){s, t, m};
    while (n) {
        Item it = st[--n];
        if (it.t < 0) {
            emit(ctx, it.s, 1);
            continue;
        }
        int h = d->how[at(d, it.s, it.t, it.m)];
        int xs = xin(d, it.s);
        switch (h & 3) {
        case CDP_BASE:
            emit(ctx, it.s, 0);
            emit(ctx, it.s, 1);
            break;
        case CDP_REPLAY:
            for (int q = it.s; q < it.t; q++)
                emit(ctx, q, 0);
            emit(ctx, it.t - 1, 1);
            st[n++] = (Item){it.s, it.t - 1, it.m};
            break;
        case CDP_SPLIT: {
            int r = h >> 2;
            for (int q = it.s; q < r; q++)
                emit(ctx, q, 0);
            st[n++] = (Item){it.s, r, it.m};          /* the head, after */
            st[n++] = (Item){r, it.t, it.m - xs};     /* the tail, first */
            break;
        }
        case CDP_TAPE:
            emit(ctx, it.s, 0);
            st[n++] = (Item){it.s, -1, 0};
            st[n++] = (Item){it.s + 1, it.t, it.m - xs - d->tape[it.s]};
            break;
        }
    }
    free(st);
    return 0;
}
