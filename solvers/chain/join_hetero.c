/* join_hetero.c — per-branch heterogeneous chain DPs for the join solver
 * and the candidate list (reversal order x kept branches x allowances);
 * see join_hetero.h. */
#include <stdlib.h>
#include <string.h>

#include "solvers/chain/join_hetero.h"
#include "src/base/xalloc.h"

typedef struct {
    int *v, n, cap;
} Buf;

static void buf_emit(void *ctx, int stage, int bwd)
{
    Buf *b = ctx;
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 16;
        b->v = xreallocarray(b->v, (size_t)b->cap, sizeof *b->v);
    }
    b->v[b->n++] = stage * 2 + bwd;
}

void jh_free(JoinHetero *h)
{
    for (int b = 0; b < h->k; b++) {
        for (int i = 0; i < h->n_allow[b]; i++)
            free(h->seq[b][i].st);
        free(h->seq[b]);
        free(h->allow[b]);
        chaindp_free(&h->dp[b]);
    }
    memset(h, 0, sizeof *h);
}

int jh_build(JoinHetero *h, int k, const int *len, double *const *uf, double *const *ub,
             int64_t *const *xb, int64_t *const *all, int R, Progress *p, Err *e)
{
    memset(h, 0, sizeof *h);
    for (int b = 0; b < k; b++)
        if ((double)len[b] * len[b] * len[b] * (double)R > 4e9)
            return err_set(e, ERR_UNSUPPORTED,
                           "join: branch %d has %d stages: too many for the heterogeneous DP at "
                           "mem_resolution=%d", b + 1, len[b], R);
    h->k = k;
    for (int b = 0; b < k; b++) {
        int L = len[b];
        h->len[b] = L;
        int64_t total = 0;
        for (int i = 0; i < L; i++)
            total += all[b][i];
        h->act[b] = total;
        h->bucket[b] = total / R + (total % R != 0);
        if (h->bucket[b] < 1)
            h->bucket[b] = 1;
        int64_t q = h->bucket[b];
        int *x = xcalloc((size_t)L, sizeof *x), *tp = xcalloc((size_t)L, sizeof *tp);
        for (int i = 0; i < L; i++) {
            x[i] = (int)((xb[b][i] + q - 1) / q);
            tp[i] = (int)((all[b][i] - xb[b][i] + q - 1) / q);
        }
        int rc = chaindp_build_rerun(&h->dp[b], L, R, uf[b], ub[b], x, tp, 1, p, e);
        free(x);
        free(tp);
        if (rc) {
            h->k = b;   /* release the branches built so far */
            jh_free(h);
            return rc;
        }
        /* one allowance per distinct DP value: the same value walks the
         * same strategy */
        h->allow[b] = xmallocarray((size_t)R + 1, sizeof *h->allow[b]);
        h->seq[b] = xcalloc((size_t)R + 1, sizeof *h->seq[b]);
        double prev = -1;
        for (int m = 0; m <= R; m++) {
            double c = chaindp_cost(&h->dp[b], 0, L, m);
            if (c >= CHAIN_DP_INF || c == prev)
                continue;
            prev = c;
            Buf buf = {0};
            chaindp_walk(&h->dp[b], 0, L, m, buf_emit, &buf);
            JhSeq *s = &h->seq[b][h->n_allow[b]];
            s->st = buf.v;
            s->n = buf.n;
            s->pre = 0;
            while (s->pre < s->n && !(s->st[s->pre] & 1))
                s->pre++;
            h->allow[b][h->n_allow[b]++] = m;
        }
    }
    return ERR_OK;
}

/* next permutation in lexicographic order; 0 after the last */
static int next_perm(int *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return 0;
    int j = n - 1;
    while (a[j] <= a[i])
        j--;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return 1;
}

typedef struct {
    JhCand *v;
    int n, cap, max;
} CandBuf;

static void push(CandBuf *c, const JhCand *x)
{
    if (c->n >= c->max)
        return;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->v = xreallocarray(c->v, (size_t)c->cap, sizeof *c->v);
    }
    c->v[c->n++] = *x;
}

int jh_candidates(const JoinHetero *h, int max_cands, JhCand **out)
{
    int k = h->k;
    int orders[24][JOIN_KMAX], n_ord = 0;
    int perm[JOIN_KMAX];
    for (int b = 0; b < k; b++)
        perm[b] = b;
    if (k <= 4) {
        do
            memcpy(orders[n_ord++], perm, sizeof perm);
        while (next_perm(perm, k));
    } else {
        /* largest activations first: the branch reversed first keeps its
         * whole forward prefix without paying for the others' */
        for (int i = 1; i < k; i++)
            for (int j = i; j > 0 && h->act[perm[j]] > h->act[perm[j - 1]]; j--) {
                int t = perm[j];
                perm[j] = perm[j - 1];
                perm[j - 1] = t;
            }
        memcpy(orders[n_ord++], perm, sizeof perm);
    }
    /* kept subsets of the branches other than the first reversed */
    unsigned keeps[1 << 3];
    int n_keep = 0;
    if (k <= 4) {
        for (unsigned s = 0; s < 1u << (k - 1); s++)
            keeps[n_keep++] = s;
    } else {
        keeps[n_keep++] = 0;
        keeps[n_keep++] = (1u << (k - 1)) - 1;
    }
    double prod = 1;
    int most = 1;
    for (int b = 0; b < k; b++) {
        prod *= h->n_allow[b];
        if (h->n_allow[b] > most)
            most = h->n_allow[b];
    }
    int full = prod * n_ord * n_keep <= max_cands;
    CandBuf cb = {NULL, 0, 0, max_cands};
    for (int o = 0; o < n_ord; o++)
        for (int q = 0; q < n_keep; q++) {
            JhCand c;
            memset(&c, 0, sizeof c);
            memcpy(c.order, orders[o], sizeof c.order);
            /* keeps[q] bit i-1 = the i-th reversed branch (i >= 1) is kept;
             * the first reversed always is */
            c.keep = 1u << c.order[0];
            for (int i = 1; i < k; i++)
                if (keeps[q] >> (i - 1) & 1)
                    c.keep |= 1u << c.order[i];
            if (full) {
                int idx[JOIN_KMAX] = {0};
                for (;;) {
                    memcpy(c.ai, idx, sizeof c.ai);
                    push(&cb, &c);
                    int b = 0;
                    while (b < k && ++idx[b] == h->n_allow[b])
                        idx[b++] = 0;
                    if (b == k)
                        break;
                }
                continue;
            }
            for (int b = 0; b < k; b++)
                for (int i = 1; i < h->n_allow[b]; i++) {
                    memset(c.ai, 0, sizeof c.ai);
                    c.ai[b] = i;
                    push(&cb, &c);
                }
            for (int t = 0; t < most; t++) {
                for (int b = 0; b < k; b++)
                    c.ai[b] = most > 1 ? (int)((long)t * (h->n_allow[b] - 1) / (most - 1)) : 0;
                push(&cb, &c);
            }
        }
    *out = cb.v;
    return cb.n;
}
