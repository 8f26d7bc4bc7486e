/* join_dp.c — the join-graph DP table of join_dp.h, filled bottom-up:
 * states are the remaining branch lengths in mixed radix, and shortening a
 * branch lowers the index, so one increasing sweep sees every sub-state
 * filled. O(prod(l_i+1) * C * sum l_i). */
#include <stdlib.h>
#include <string.h>

#include "solvers/chain/join_dp.h"
#include "src/base/xalloc.h"

int join_min_slots(int k, const int *len)
{
    int nz = 0, one = 0;
    for (int i = 0; i < k; i++) {
        nz += len[i] > 0;
        one |= len[i] == 1;
    }
    return nz ? k + nz + 1 - one : k;
}

long joindp_index(const JoinDP *d, const int *rem)
{
    long ix = 0;
    for (int i = d->k - 1; i >= 0; i--)
        ix = ix * (d->len[i] + 1) + rem[i];
    return ix;
}

long long joindp_opt0(const JoinDP *d, int l, int c)
{
    if (c > d->CR)
        c = d->CR;
    return d->O0[(size_t)c * (size_t)(d->Lmax + 1) + (size_t)l];
}

int joindp_opt0_split(const JoinDP *d, int l, int c)
{
    if (c > d->CR)
        c = d->CR;
    return d->O0s[(size_t)c * (size_t)(d->Lmax + 1) + (size_t)l];
}

/* Opt0 with the same recurrence as revolve.c (tests compare the two). */
static void fill_opt0(JoinDP *d)
{
    size_t W = (size_t)d->Lmax + 1;
    d->O0 = xcalloc((size_t)(d->CR + 1) * W, sizeof *d->O0);
    d->O0s = xcalloc((size_t)(d->CR + 1) * W, sizeof *d->O0s);
    for (int c = 1; c <= d->CR; c++)
        for (int l = 0; l <= d->Lmax; l++) {
            size_t i = (size_t)c * W + (size_t)l;
            if (l <= 1) {
                d->O0[i] = l;
                continue;
            }
            if (c == 1) {
                d->O0[i] = (long long)l * (l + 1) / 2;
                d->O0s[i] = l - 1;
                continue;
            }
            long long best = -1;
            for (int j = 1; j < l; j++) {
                long long v = j + d->O0[(size_t)(c - 1) * W + (size_t)(l - j)] + d->O0[i - (size_t)l + (size_t)j];
                if (best < 0 || v < best) {
                    best = v;
                    d->O0s[i] = j;
                }
            }
            d->O0[i] = best;
        }
}

static double chain_cost(const JoinDP *d, int j, int s)
{
    if (j == 1)
        return s >= 2 ? 1 : JOIN_DP_INF;
    return s >= 3 ? (double)joindp_opt0(d, j, s - 2) : JOIN_DP_INF;
}

int joindp_build(JoinDP *d, int k, const int *len, int C, long max_cells)
{
    memset(d, 0, sizeof *d);
    if (k < 1 || k > JOIN_KMAX || C < 0)
        return -1;
    d->k = k;
    d->C = C;
    long n = 1;
    for (int i = 0; i < k; i++) {
        d->len[i] = len[i];
        if (len[i] > d->Lmax)
            d->Lmax = len[i];
        n *= len[i] + 1;
        if (n * (C + 1) > max_cells)
            return -1;
    }
    d->n_states = n;
    d->CR = C > 1 ? C : 1;
    fill_opt0(d);
    size_t cells = (size_t)n * (size_t)(C + 1);
    d->J = xmallocarray(cells, sizeof *d->J);
    d->choice = xmallocarray(cells, sizeof *d->choice);
    int rem[JOIN_KMAX];
    for (long ix = 0; ix < n; ix++) {
        long r = ix;
        int any = 0;
        for (int i = 0; i < k; i++) {
            rem[i] = (int)(r % (len[i] + 1));
            r /= len[i] + 1;
            any |= rem[i] > 0;
        }
        for (int c = 0; c <= C; c++) {
            size_t at = (size_t)ix * (size_t)(C + 1) + (size_t)c;
            d->choice[at] = -1;
            if (!any) {
                d->J[at] = c >= k ? 0 : JOIN_DP_INF;
                continue;
            }
            double best = JOIN_DP_INF;
            for (int m = 0; m < k && c >= 1; m++) {
                long stride = 1;
                for (int i = 0; i < m; i++)
                    stride *= len[i] + 1;
                for (int j = 1; j <= rem[m]; j++) {
                    double ch = chain_cost(d, j, c - (k - 1));
                    if (ch >= JOIN_DP_INF)
                        continue;
                    double sub = d->J[(size_t)(ix - j * stride) * (size_t)(C + 1) + (size_t)(c - 1)];
                    if (sub >= JOIN_DP_INF)
                        continue;
                    double v = j + sub + ch;
                    if (v < best) {
                        best = v;
                        d->choice[at] = m * 65536 + j;
                    }
                }
            }
            d->J[at] = best;
        }
    }
    return 0;
}

double joindp_cost(const JoinDP *d, const int *rem, int c)
{
    if (c < 0)
        return JOIN_DP_INF;
    if (c > d->C)
        c = d->C;
    return d->J[(size_t)joindp_index(d, rem) * (size_t)(d->C + 1) + (size_t)c];
}

void joindp_free(JoinDP *d)
{
    free(d->J);
    free(d->choice);
    free(d->O0);
    free(d->O0s);
    memset(d, 0, sizeof *d);
}
