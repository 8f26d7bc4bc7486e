/* kusumoto_dp.c — the lower-set families and the DP over (lower set,
 * overhead) of Kusumoto et al. 2019 §4.2–4.3 (see kusumoto.h for the
 * model). Sets are bitsets over the forward nodes; the exact family is
 * found breadth-first from ∅ (one node added at a time, hashed to drop
 * repeats); both families are then ordered by (M(L), |L|). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/kusumoto/kusumoto.h"
#include "src/base/csr.h"
#include "src/base/xalloc.h"

static uint64_t hash_set(const uint64_t *b, int words)
{
    uint64_t h = 1469598103934665603ull;
    for (int w = 0; w < words; w++) {
        h ^= b[w];
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

typedef struct {
    uint64_t *bits;
    int n, cap;         /* sets stored */
    int *slot;          /* open addressing: -1 empty, else set index */
    int slots;          /* power of two */
    int words;
} SetTab;

static int settab_find_or_add(SetTab *t, const uint64_t *b, int *added)
{
    if (2 * (t->n + 1) > t->slots) {
        int ns = t->slots ? 2 * t->slots : 1024;
        int *nsl = xmallocarray((size_t)ns, sizeof *nsl);
        for (int i = 0; i < ns; i++)
            nsl[i] = -1;
        for (int i = 0; i < t->n; i++) {
            uint64_t h = hash_set(t->bits + (size_t)i * (size_t)t->words, t->words);
            size_t s = (size_t)h & (size_t)(ns - 1);
            while (nsl[s] >= 0)
                s = (s + 1) & (size_t)(ns - 1);
            nsl[s] = i;
        }
        free(t->slot);
        t->slot = nsl;
        t->slots = ns;
    }
    uint64_t h = hash_set(b, t->words);
    size_t s = (size_t)h & (size_t)(t->slots - 1);
    size_t wb = (size_t)t->words * sizeof *b;
    while (t->slot[s] >= 0) {
        if (!memcmp(t->bits + (size_t)t->slot[s] * (size_t)t->words, b, wb)) {
            *added = 0;
            return t->slot[s];
        }
        s = (s + 1) & (size_t)(t->slots - 1);
    }
    if (t->n + 1 > t->cap)
        xgrow((void **)&t->bits, &t->cap, (t->n + 1), wb);
    memcpy(t->bits + (size_t)t->n * (size_t)t->words, b, wb);
    t->slot[s] = t->n;
    *added = 1;
    return t->n++;
}

/* Side values: forward nodes with a forward input that no forward node
 * or loss reads, only the backward (a joint graph's batch-norm statistics,
 * max-pool indices, dropout masks). Each joins a lower set as soon as its
 * forward inputs and its anchor, the nearest non-side forward node before
 * it in the graph's order, are in (in a joint graph the anchor is the
 * operator whose further outputs they are, so they stay in its block). So
 * they neither multiply the exact family (each could otherwise be in or
 * out on its own) nor stay outside every ancestor set of the pruned one
 * (which left them all to the last block, their producers cached through
 * the whole forward). f->side per forward index; f->sd lists, per forward
 * index, the side values that leave a set with it. */
static void side_values(const Graph *g, KusFamily *f)
{
    f->side = xcalloc((size_t)f->nf + 1, 1);
    for (int x = 0; x < f->nf; x++) {
        int v = f->fwd[x], fin = 0, fout = 0;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            fin |= f->fid[g->in_idx[k]] >= 0;
        for (int k = g->out_off[v]; k < g->out_off[v + 1]; k++) {
            Phase ph = g->nodes[g->out_idx[k]].phase;
            fout |= ph == PHASE_FWD || ph == PHASE_LOSS;
        }
        f->side[x] = fin && !fout;
    }
    f->anchor = xmallocarray((size_t)f->nf + 1, sizeof *f->anchor);
    for (int x = 0, last = -1; x < f->nf; x++) {
        f->anchor[x] = f->side[x] ? last : -1;
        if (!f->side[x])
            last = x;
    }
    Csr c;
    csr_begin(&c, f->nf);
    do
        for (int x = 0; x < f->nf; x++) {
            int v = f->fwd[x];
            if (!f->side[x])
                continue;
            for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
                if (f->fid[g->in_idx[k]] >= 0)
                    csr_put(&c, f->fid[g->in_idx[k]], x);
            if (f->anchor[x] >= 0)
                csr_put(&c, f->anchor[x], x);
        }
    while (csr_next(&c));
    f->sd_off = c.off;
    f->sd = c.adj;
}

/* Add to set b every side value whose forward inputs and anchor are in it. */
static void close_side(const Graph *g, const KusFamily *f, const unsigned char *side, uint64_t *b)
{
    for (int x = 0; x < f->nf; x++) {
        if (!side[x] || ((b[x >> 6] >> (x & 63)) & 1u))
            continue;
        int v = f->fwd[x], y0 = f->anchor[x], ok = y0 < 0 || ((b[y0 >> 6] >> (y0 & 63)) & 1u);
        for (int k = g->in_off[v]; k < g->in_off[v + 1] && ok; k++) {
            int y = f->fid[g->in_idx[k]];
            ok = y < 0 || ((b[y >> 6] >> (y & 63)) & 1u);
        }
        if (ok)
            b[x >> 6] |= (uint64_t)1 << (x & 63);
    }
}

/* Every lower set (side values closed in), breadth-first; 0 with the
 * count so far in *n when there are more than max_sets. */
static uint64_t *enumerate_exact(const Graph *g, const KusFamily *f, long max_sets, int *n)
{
    int W = f->words;
    SetTab t = {0};
    t.words = W;
    uint64_t *cur = xcalloc((size_t)W, sizeof *cur);
    uint64_t *nxt = xcalloc((size_t)W, sizeof *nxt);
    const unsigned char *side = f->side;
    int added;
    settab_find_or_add(&t, cur, &added);
    for (int head = 0; head < t.n; head++) {
        memcpy(cur, t.bits + (size_t)head * (size_t)W, (size_t)W * sizeof *cur);
        for (int x = 0; x < f->nf; x++) {
            if (side[x] || ((cur[x >> 6] >> (x & 63)) & 1u))
                continue;
            int v = f->fwd[x], ok = 1;
            for (int k = g->in_off[v]; k < g->in_off[v + 1] && ok; k++) {
                int y = f->fid[g->in_idx[k]];
                if (y >= 0 && !((cur[y >> 6] >> (y & 63)) & 1u))
                    ok = 0;
            }
            if (!ok)
                continue;
            memcpy(nxt, cur, (size_t)W * sizeof *nxt);
            nxt[x >> 6] |= (uint64_t)1 << (x & 63);
            close_side(g, f, side, nxt);
            settab_find_or_add(&t, nxt, &added);
            if (t.n > max_sets) {
                *n = t.n;
                free(cur);
                free(nxt);
                free(t.slot);
                free(t.bits);
                return NULL;
            }
        }
    }
    free(cur);
    free(nxt);
    free(t.slot);
    *n = t.n;
    return t.bits;
}

static int cmp_cnt(const void *a, const void *b)
{
    const int *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* ∅, the ancestors of each forward node (itself included, side values
 * closed in, duplicates dropped), and F. */
static uint64_t *enumerate_approx(const Graph *g, const KusFamily *f, int *n)
{
    int W = f->words, nf = f->nf;
    uint64_t *anc = xcalloc((size_t)(nf + 2) * (size_t)W, sizeof *anc);
    /* f->fwd lists forward nodes in topological order */
    for (int x = 0; x < nf; x++) {
        uint64_t *a = anc + (size_t)(x + 1) * (size_t)W;
        int v = f->fwd[x];
        a[x >> 6] |= (uint64_t)1 << (x & 63);
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int y = f->fid[g->in_idx[k]];
            if (y < 0)
                continue;
            const uint64_t *b = anc + (size_t)(y + 1) * (size_t)W;
            for (int w = 0; w < W; w++)
                a[w] |= b[w];
        }
    }
    for (int x = 0; x < nf; x++)
        close_side(g, f, f->side, anc + (size_t)(x + 1) * (size_t)W);
    /* F, unless one forward node has every other as ancestor */
    int full = 0;
    for (int x = 0; x < nf && !full; x++) {
        int c = 0;
        const uint64_t *a = anc + (size_t)(x + 1) * (size_t)W;
        for (int w = 0; w < W; w++)
            c += __builtin_popcountll(a[w]);
        full = c == nf;
    }
    int N = nf + 1;
    if (!full) {
        uint64_t *a = anc + (size_t)(nf + 1) * (size_t)W;
        for (int x = 0; x < nf; x++)
            a[x >> 6] |= (uint64_t)1 << (x & 63);
        N++;
    }
    /* order by size (key, original index) */
    int *key = xmallocarray((size_t)N * 2, sizeof *key);
    for (int i = 0; i < N; i++) {
        int c = 0;
        const uint64_t *a = anc + (size_t)i * (size_t)W;
        for (int w = 0; w < W; w++)
            c += __builtin_popcountll(a[w]);
        key[2 * i] = c;
        key[2 * i + 1] = i;
    }
    qsort(key, (size_t)N, 2 * sizeof *key, cmp_cnt);
    uint64_t *bits = xmallocarray((size_t)N * (size_t)W, sizeof *bits);
    int m = 0;
    for (int i = 0; i < N; i++) {
        const uint64_t *a = anc + (size_t)key[2 * i + 1] * (size_t)W;
        int dup = 0;
        /* equal sets have equal counts, so only the run of this count */
        for (int j = m - 1; j >= 0 && !dup; j--) {
            int c = 0;
            for (int w = 0; w < W; w++)
                c += __builtin_popcountll(bits[(size_t)j * (size_t)W + (size_t)w]);
            if (c != key[2 * i])
                break;
            dup = !memcmp(bits + (size_t)j * (size_t)W, a, (size_t)W * sizeof *bits);
        }
        if (!dup)
            memcpy(bits + (size_t)m++ * (size_t)W, a, (size_t)W * sizeof *bits);
    }
    free(key);
    free(anc);
    *n = m;
    return bits;
}

/* Sizes, costs, boundary, maximal elements and the A term of every set. */
static void set_stats(const Graph *g, KusFamily *f)
{
    int N = f->N, nf = f->nf;
    f->cnt = xcalloc((size_t)N, sizeof *f->cnt);
    f->S = xcalloc((size_t)N, sizeof *f->S);
    f->C = xcalloc((size_t)N, sizeof *f->C);
    f->A = xcalloc((size_t)N, sizeof *f->A);
    f->bd_off = xcalloc((size_t)N + 1, sizeof *f->bd_off);
    f->mx_off = xcalloc((size_t)N + 1, sizeof *f->mx_off);
    int bcap = 0, mcap = 0, nb = 0, nm = 0;
    int *stA = xmallocarray((size_t)nf, sizeof *stA), *stB = xmallocarray((size_t)nf, sizeof *stB);
    for (int x = 0; x < nf; x++)
        stA[x] = stB[x] = -1;
    for (int L = 0; L < N; L++) {
        const uint64_t *b = f->bits + (size_t)L * (size_t)f->words;
        for (int w = 0; w < f->words; w++)
            for (uint64_t m = b[w]; m; m &= m - 1) {
                int x = w * 64 + __builtin_ctzll(m);
                int v = f->fwd[x];
                f->cnt[L]++;
                f->S[L] += g->nodes[v].size;
                f->C[L] += g->nodes[v].cost;
                int out = 0, in = 0;
                for (int k = g->out_off[v]; k < g->out_off[v + 1]; k++) {
                    int y = f->fid[g->out_idx[k]];
                    if (y < 0)
                        continue;
                    if (kus_has(f, L, y)) {
                        in |= !f->side[y];   /* side values leave with x: x stays removable */
                        continue;
                    }
                    out = 1;
                    if (stA[y] == L)
                        continue;
                    stA[y] = L;   /* y ∈ δ+(L) \ L */
                    f->A[L] += g->nodes[f->fwd[y]].size;
                    int wv = f->fwd[y];
                    for (int q = g->in_off[wv]; q < g->in_off[wv + 1]; q++) {
                        int z = f->fid[g->in_idx[q]];
                        if (z >= 0 && !kus_has(f, L, z) && stB[z] != L) {
                            stB[z] = L;   /* z ∈ δ−(δ+(L)) \ L */
                            f->A[L] += g->nodes[f->fwd[z]].size;
                        }
                    }
                }
                if (out) {
                    xgrow((void **)&f->bd, &bcap, nb + 1, sizeof *f->bd);
                    f->bd[nb++] = x;
                }
                if (!in) {
                    xgrow((void **)&f->mx, &mcap, nm + 1, sizeof *f->mx);
                    f->mx[nm++] = x;
                }
            }
        f->bd_off[L + 1] = nb;
        f->mx_off[L + 1] = nm;
    }
    free(stA);
    free(stB);
}

typedef struct {
    int64_t S;
    int cnt, idx;
} SetKey;

static int cmp_setkey(const void *a, const void *b)
{
    const SetKey *x = a, *y = b;
    if (x->S != y->S)
        return x->S < y->S ? -1 : 1;
    if (x->cnt != y->cnt)
        return x->cnt < y->cnt ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Order sets by (M(L), |L|): a proper subset still comes first (its size
 * is no larger and it has fewer nodes), and the sets a DP transition into
 * L' may start from at model budget B, those with 2(M(L') - M(L)) + A(L')
 * <= B, form a suffix of the sets before L'. ∅ stays first, F last. */
static void sort_sets(KusFamily *f)
{
    int N = f->N, W = f->words;
    SetKey *key = xmallocarray((size_t)N, sizeof *key);
    for (int L = 0; L < N; L++) {
        key[L] = (SetKey){0, 0, L};
        const uint64_t *b = f->bits + (size_t)L * (size_t)W;
        for (int w = 0; w < W; w++)
            for (uint64_t m = b[w]; m; m &= m - 1) {
                key[L].S += f->fsize[w * 64 + __builtin_ctzll(m)];
                key[L].cnt++;
            }
    }
    qsort(key, (size_t)N, sizeof *key, cmp_setkey);
    uint64_t *bits = xmallocarray((size_t)N * (size_t)W, sizeof *bits);
    for (int L = 0; L < N; L++)
        memcpy(bits + (size_t)L * (size_t)W, f->bits + (size_t)key[L].idx * (size_t)W,
               (size_t)W * sizeof *bits);
    free(f->bits);
    f->bits = bits;
    free(key);
}

/* Index of the exact family's set with these bits, -1 when none. */
static int family_find(const KusFamily *f, const uint64_t *b)
{
    size_t mask = (size_t)f->hslots - 1;
    size_t s = (size_t)hash_set(b, f->words) & mask;
    size_t wb = (size_t)f->words * sizeof *b;
    while (f->hslot[s] >= 0) {
        if (!memcmp(f->bits + (size_t)f->hslot[s] * (size_t)f->words, b, wb))
            return f->hslot[s];
        s = (s + 1) & mask;
    }
    return -1;
}

static void family_index(KusFamily *f)
{
    int ns = 1024;
    while (ns < 2 * f->N)
        ns *= 2;
    f->hslots = ns;
    f->hslot = xmallocarray((size_t)ns, sizeof *f->hslot);
    for (int i = 0; i < ns; i++)
        f->hslot[i] = -1;
    for (int L = 0; L < f->N; L++) {
        size_t s = (size_t)hash_set(f->bits + (size_t)L * (size_t)f->words, f->words) &
                   (size_t)(ns - 1);
        while (f->hslot[s] >= 0)
            s = (s + 1) & (size_t)(ns - 1);
        f->hslot[s] = L;
    }
}

KusFamily *kus_family_new(const Graph *g, int approx, long max_sets, Err *e)
{
    KusFamily *f = xcalloc(1, sizeof *f);
    f->fid = xmallocarray((size_t)g->n, sizeof *f->fid);
    f->fwd = xmallocarray((size_t)g->n, sizeof *f->fwd);
    for (int t = 0; t < g->n; t++) {
        int v = g->topo[t];
        f->fid[v] = -1;
        if (g->nodes[v].phase == PHASE_FWD) {
            f->fid[v] = f->nf;
            f->fwd[f->nf++] = v;
        }
    }
    f->fsize = xcalloc((size_t)f->nf + 1, sizeof *f->fsize);
    f->fcost = xcalloc((size_t)f->nf + 1, sizeof *f->fcost);
    for (int x = 0; x < f->nf; x++) {
        f->fsize[x] = g->nodes[f->fwd[x]].size;
        f->fcost[x] = g->nodes[f->fwd[x]].cost;
    }
    f->words = (f->nf + 63) / 64;
    if (f->words == 0)
        f->words = 1;
    side_values(g, f);
    int N = 0;
    if (approx) {
        f->bits = enumerate_approx(g, f, &N);
    } else {
        f->bits = enumerate_exact(g, f, max_sets, &N);
        if (!f->bits) {
            kus_family_free(f);
            err_set(e, ERR_UNSUPPORTED,
                    "kusumoto-exact: the forward part's count of lower sets (more than %d "
                    "found) exceeds the limit max_lower_sets=%ld; use kusumoto-approx",
                    N - 1, max_sets);
            return NULL;
        }
    }
    f->N = N;
    sort_sets(f);
    if (!approx)
        family_index(f);
    set_stats(g, f);
    return f;
}

void kus_family_free(KusFamily *f)
{
    if (!f)
        return;
    free(f->fwd);
    free(f->fid);
    free(f->fsize);
    free(f->fcost);
    free(f->bits);
    free(f->cnt);
    free(f->S);
    free(f->C);
    free(f->A);
    free(f->bd_off);
    free(f->bd);
    free(f->mx_off);
    free(f->mx);
    free(f->side);
    free(f->anchor);
    free(f->sd_off);
    free(f->sd);
    free(f->hslot);
    free(f);
}

static int buckets(double c, double unit)
{
    if (c <= 0)
        return 0;
    if (!(unit > 0))
        unit = 1;
    double q = ceil(c / unit - 1e-9);
    return q < 0 ? 0 : q > 1e9 ? 1000000000 : (int)q;
}

/* The boundary of L2 that is new in L2 \ L: its size (added to the cache)
 * and cost (kept, so not recomputed). */
static void new_boundary(const KusFamily *f, int L, int L2, int64_t *bm, double *bc)
{
    *bm = 0;
    *bc = 0;
    for (int q = f->bd_off[L2]; q < f->bd_off[L2 + 1]; q++) {
        int x = f->bd[q];
        if (!kus_has(f, L, x)) {
            *bm += f->fsize[x];
            *bc += f->fcost[x];
        }
    }
}

static int is_subset(const KusFamily *f, int L, int L2)
{
    for (int q = f->mx_off[L]; q < f->mx_off[L + 1]; q++)
        if (!kus_has(f, L2, f->mx[q]))
            return 0;
    return 1;
}

int kus_step_buckets(const KusFamily *f, int L, int L2, double unit)
{
    if (L2 == f->N - 1)
        return 0;   /* the last block is never recomputed */
    int64_t bm;
    double bc;
    new_boundary(f, L, L2, &bm, &bc);
    return buckets(f->C[L2] - f->C[L] - bc, unit);
}

void kus_chain_model(const KusFamily *f, const int *chain, int k, double unit, int *tb,
                     int64_t *peak)
{
    int64_t m = 0, pk = 0;
    int t = 0, prev = 0;
    for (int i = 0; i < k; i++) {
        int L = chain[i];
        int64_t d = f->S[L] - f->S[prev];
        int64_t here = bytes_add(bytes_add(bytes_add(m, d), d), f->A[L]);
        if (here > pk)
            pk = here;
        int64_t bm;
        double bc;
        new_boundary(f, prev, L, &bm, &bc);
        t += kus_step_buckets(f, prev, L, unit);
        m += bm;
        prev = L;
    }
    *tb = t;
    *peak = pk;
}

/* One label of the sparse table opt[L, t]: the least cache m reaching L
 * with overhead t buckets, and where it came from. */
typedef struct {
    int tb;
    int64_t m;
    int from, fl;   /* previous set and its label index */
} Lab;

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* The lower sets L_i that may precede L' = L_j within budget B, into
 * preds; returns their number. stack, stamp and tmp are the exact walk's
 * scratch (stamp marks what stage j has reached). */
static int find_preds(const KusFamily *f, int j, int64_t B, int *preds, int *stack, int *stamp,
                      uint64_t *tmp)
{
    int np = 0;
    if (B < f->A[j]) {
        /* not even L' itself fits */
    } else if (f->hslot) {
        /* Exact family: walk down from L' by removing maximal elements.
         * Every lower set inside L' is reached, and none outside;
         * removing more only raises 2 (S[j] - S[i]), so a set over the
         * budget ends its branch. */
        int sp = 0;
        stack[sp++] = j;
        while (sp) {
            int X = stack[--sp];
            const uint64_t *xb = f->bits + (size_t)X * (size_t)f->words;
            for (int q = f->mx_off[X]; q < f->mx_off[X + 1]; q++) {
                int x = f->mx[q];
                if (f->side[x])
                    continue;   /* a side value leaves only with its inputs */
                int64_t d = f->S[j] - f->S[X] + f->fsize[x];
                if (bytes_add(bytes_add(d, d), f->A[j]) > B)
                    continue;
                memcpy(tmp, xb, (size_t)f->words * sizeof *tmp);
                tmp[x >> 6] &= ~((uint64_t)1 << (x & 63));
                for (int r = f->sd_off[x]; r < f->sd_off[x + 1]; r++)
                    tmp[f->sd[r] >> 6] &= ~((uint64_t)1 << (f->sd[r] & 63));
                int Y = family_find(f, tmp);
                if (Y < 0 || stamp[Y] == j)
                    continue;
                stamp[Y] = j;
                stack[sp++] = Y;
                preds[np++] = Y;
            }
        }
    } else {
        /* first set with 2 (S[j] - S[i]) + A[j] <= B */
        int64_t smin = f->S[j] - (B - f->A[j]) / 2;
        int lo = 0, hi = j;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (f->S[mid] < smin)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (int i = lo; i < j; i++)
            if (f->cnt[i] < f->cnt[j] && is_subset(f, i, j))
                preds[np++] = i;
    }
    return np;
}

/* The labels at F, best first: one chain of lower-set indices each
 * (into chains when non-NULL) and its length k; returns how many. */
static int read_chains(const KusFamily *f, const Lab *lab, const int *off, int nwant, int **chains,
                       int *ks)
{
    int N = f->N, got = 0;
    for (int l0 = off[N - 1]; l0 < off[N] && got < nwant; l0++) {
        int k = -1;
        for (int l = l0; l >= 0; l = lab[l].fl)
            k++;   /* ∅'s label is not part of the chain */
        if (chains) {
            int *c = xmallocarray((size_t)k, sizeof *c);
            int i = k - 1, L = N - 1;
            for (int l = l0; lab[l].from >= 0; l = lab[l].fl) {
                c[i--] = L;
                L = lab[l].from;
            }
            chains[got] = c;
        }
        ks[got++] = k;
    }
    return got;
}

/* Pull DP over sets in order of size. Each set keeps only its Pareto
 * labels (the paper's remark: opt[L, t] < opt[L, t'] with t < t' makes
 * t' useless), in order of preference: increasing t for KUS_MIN_T,
 * decreasing t for KUS_MAX_T. The peak of the transition into L2 does not
 * depend on the new boundary, so it filters pairs before the subset test. */
static int dp_core(const KusFamily *f, int64_t B, double unit, int mode, int nwant, int **chains,
                   int *ks, Progress *p)
{
    int N = f->N;
    int W = 1;
    if (mode != KUS_FEASIBLE)
        W = buckets(f->C[N - 1], unit) + f->nf + 2;
    int *off = xcalloc((size_t)N + 1, sizeof *off);
    int64_t *minm = xmallocarray((size_t)N, sizeof *minm);
    Lab *lab = NULL;
    int nlab = 0, labcap = 0;
    int64_t *dm = xmallocarray((size_t)W, sizeof *dm);
    int *dfrom = xmallocarray((size_t)W, sizeof *dfrom), *dfl = xmallocarray((size_t)W, sizeof *dfl);
    int *touch = xmallocarray((size_t)W, sizeof *touch), nt = 0;
    for (int t = 0; t < W; t++)
        dm[t] = INT64_MAX;
    xgrow((void **)&lab, &labcap, 1, sizeof *lab);
    lab[nlab++] = (Lab){0, 0, -1, -1};
    off[1] = 1;
    minm[0] = 0;
    int *preds = xmallocarray((size_t)N, sizeof *preds);
    int *stack = NULL, *stamp = NULL;
    uint64_t *tmp = NULL;
    if (f->hslot) {
        stack = xmallocarray((size_t)N, sizeof *stack);
        stamp = xmallocarray((size_t)N, sizeof *stamp);
        tmp = xmallocarray((size_t)f->words, sizeof *tmp);
        for (int i = 0; i < N; i++)
            stamp[i] = -1;
    }
    int cancelled = 0;
    for (int j = 1; j < N; j++) {
        if ((j & 63) == 0 && progress_cancelled(p)) {
            cancelled = 1;
            break;
        }
        int np = find_preds(f, j, B, preds, stack, stamp, tmp);
        for (int q = 0; q < np; q++) {
            int i = preds[q];
            if (off[i + 1] == off[i])
                continue;
            int64_t d = f->S[j] - f->S[i];
            int64_t base = bytes_add(bytes_add(d, d), f->A[j]);
            if (bytes_add(minm[i], base) > B)
                continue;
            int64_t bm;
            double bc;
            new_boundary(f, i, j, &bm, &bc);
            int dt = 0;
            if (mode != KUS_FEASIBLE && j != N - 1)
                dt = buckets(f->C[j] - f->C[i] - bc, unit);
            for (int l = off[i]; l < off[i + 1]; l++) {
                if (bytes_add(lab[l].m, base) > B)
                    continue;
                int t = lab[l].tb + dt;
                if (t >= W)
                    t = W - 1;   /* cannot happen: W bounds every chain */
                int64_t m = bytes_add(lab[l].m, bm);
                if (dm[t] == INT64_MAX)
                    touch[nt++] = t;
                if (m < dm[t]) {
                    dm[t] = m;
                    dfrom[t] = i;
                    dfl[t] = l;
                }
            }
        }
        qsort(touch, (size_t)nt, sizeof *touch, cmp_int);
        int64_t best = INT64_MAX;
        for (int q = 0; q < nt; q++) {
            int t = touch[mode == KUS_MAX_T ? nt - 1 - q : q];
            if (dm[t] < best) {
                best = dm[t];
                xgrow((void **)&lab, &labcap, nlab + 1, sizeof *lab);
                lab[nlab++] = (Lab){t, dm[t], dfrom[t], dfl[t]};
            }
        }
        minm[j] = best;
        for (int q = 0; q < nt; q++)
            dm[touch[q]] = INT64_MAX;
        nt = 0;
        off[j + 1] = nlab;
    }
    int got = cancelled ? -1 : read_chains(f, lab, off, nwant, chains, ks);
    free(preds);
    free(stack);
    free(stamp);
    free(tmp);
    free(off);
    free(minm);
    free(lab);
    free(dm);
    free(dfrom);
    free(dfl);
    free(touch);
    return got;
}

int kus_dp(const KusFamily *f, int64_t B, double unit, int mode, int **chain, Progress *p)
{
    int k = 0;
    int got = dp_core(f, B, unit, mode, 1, chain, &k, p);
    return got < 0 ? -1 : got ? k : 0;
}

int kus_dp_front(const KusFamily *f, int64_t B, double unit, int max, int **chains, int *ks,
                 Progress *p)
{
    return dp_core(f, B, unit, KUS_MIN_T, max, chains, ks, p);
}
