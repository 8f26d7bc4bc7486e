/* treedec.c — min-fill tree decomposition, Lemma 1 shrinking, centroid
 * (balanced separator) decomposition and a validity check. See treedec.h.
 *
 * Min-fill keeps the shrinking graph as a bit matrix: a neighbourhood is a
 * row ANDed with the alive set, and the fill of v is half the sum over its
 * neighbours u of |N(v) \ N[u]|, a popcount per word. Eliminating v only
 * changes the fill of its neighbours and, when fill edges were added, of
 * their neighbours, so only those are recounted; the minimum is found by a
 * linear scan (O(n) per step, O(n^2) in all, cheap next to the recounts).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/twremat/treedec.h"
#include "src/base/csr.h"
#include "src/base/xalloc.h"

void treedec_init(TreeDec *td)
{
    memset(td, 0, sizeof *td);
    td->root = -1;
    td->width = -1;
}

void treedec_done(TreeDec *td)
{
    free(td->off);
    free(td->nodes);
    free(td->parent);
    treedec_init(td);
}

static int popcount64(uint64_t x)
{
    return __builtin_popcountll(x);
}

static int bit_get(const uint64_t *row, int i)
{
    return (int)((row[i >> 6] >> (i & 63)) & 1u);
}

/* fill(v) in the graph restricted to alive: pairs of neighbours of v that
 * are not adjacent. nv is scratch for N(v). */
static long long count_fill(const uint64_t *A, const uint64_t *alive, int W, int v, uint64_t *nv)
{
    const uint64_t *rv = A + (size_t)v * (size_t)W;
    for (int w = 0; w < W; w++)
        nv[w] = rv[w] & alive[w];
    long long miss = 0;
    for (int w = 0; w < W; w++)
        for (uint64_t bits = nv[w]; bits; bits &= bits - 1) {
            int u = w * 64 + __builtin_ctzll(bits);
            const uint64_t *ru = A + (size_t)u * (size_t)W;
            for (int x = 0; x < W; x++)
                miss += popcount64(nv[x] & ~ru[x]);
            miss--;   /* u itself: in N(v), never in its own row */
        }
    return miss / 2;
}

/* Eliminate v (its alive neighbours nv): N(v) becomes a clique, the
 * neighbours lose v, and the fill and degree of every vertex whose
 * neighbourhood changed are brought up to date (nv is then count_fill's
 * scratch row). */
static void eliminate(uint64_t *A, const uint64_t *alive, uint64_t *nv, uint64_t *touch, int W,
                      int v, long long *fill, int *deg)
{
    /* make N(v) a clique; the neighbours lose v */
    int added = fill[v] > 0;
    memset(touch, 0, (size_t)W * sizeof *touch);
    for (int w = 0; w < W; w++)
        for (uint64_t bits = nv[w]; bits; bits &= bits - 1) {
            int u = w * 64 + __builtin_ctzll(bits);
            uint64_t *ru = A + (size_t)u * W;
            if (added)
                for (int x = 0; x < W; x++)
                    ru[x] |= nv[x];
            ru[u >> 6] &= ~((uint64_t)1 << (u & 63));
            ru[v >> 6] &= ~((uint64_t)1 << (v & 63));
            for (int x = 0; x < W; x++)
                touch[x] |= added ? ru[x] : 0;
            touch[u >> 6] |= (uint64_t)1 << (u & 63);
        }
    for (int w = 0; w < W; w++)
        for (uint64_t bits = touch[w] & alive[w]; bits; bits &= bits - 1) {
            int u = w * 64 + __builtin_ctzll(bits);
            if (!added) {
                /* N(v) was a clique: u only lost v, and with it the
                 * missing pairs (v, x) for its neighbours x outside N(v);
                 * counting those is one row, where a recount costs a row
                 * per neighbour (a 10K-wide star: 46 s instead of ms) */
                const uint64_t *ru = A + (size_t)u * W;
                long long lost = 0;
                for (int x = 0; x < W; x++)
                    lost += popcount64(ru[x] & alive[x] & ~nv[x]);
                fill[u] -= lost;
                deg[u]--;
                continue;
            }
            fill[u] = count_fill(A, alive, W, u, nv);
            int d = 0;
            const uint64_t *ru = A + (size_t)u * W;
            for (int x = 0; x < W; x++)
                d += popcount64(ru[x] & alive[x]);
            deg[u] = d;
        }
}

/* The bags in elimination order become a tree: each bag's parent is the
 * bag of its earliest-eliminated other vertex. */
static void link_bags(TreeDec *td, int n, int *boff, int *bnodes, const int *pos, const int *elim)
{
    td->nbags = n;
    td->off = boff;
    td->nodes = bnodes;
    td->parent = xmallocarray((size_t)n, sizeof *td->parent);
    td->width = 0;
    int lastroot = -1;
    for (int i = n - 1; i >= 0; i--) {
        int par = -1;
        for (int k = boff[i]; k < boff[i + 1]; k++) {
            int u = bnodes[k];
            if (u != elim[i] && (par < 0 || pos[u] < par))
                par = pos[u];
        }
        if (par < 0) {
            /* root of one connected component: hang it under the
             * last root; they share no vertex, so nothing breaks */
            par = lastroot;
            if (lastroot < 0)
                lastroot = i;
        }
        td->parent[i] = par;
        if (boff[i + 1] - boff[i] - 1 > td->width)
            td->width = boff[i + 1] - boff[i] - 1;
    }
    td->root = lastroot;
}

int treedec_min_fill(int n, const int *off, const int *adj, TreeDec *td, Progress *p, Err *e)
{
    treedec_init(td);
    if (n > TREEDEC_MAX_N)
        return err_set(e, ERR_LIMIT,
                       "tree decomposition: %d vertices, more than the %d min-fill handles", n,
                       TREEDEC_MAX_N);
    td->n = n;
    if (n == 0)
        return ERR_OK;
    int W = (n + 63) / 64;
    uint64_t *A = xcalloc((size_t)n * (size_t)W, sizeof *A);
    uint64_t *alive = xcalloc((size_t)W, sizeof *alive);
    uint64_t *nv = xcalloc((size_t)W, sizeof *nv);
    uint64_t *touch = xcalloc((size_t)W, sizeof *touch);
    for (int v = 0; v < n; v++) {
        alive[v >> 6] |= (uint64_t)1 << (v & 63);
        for (int k = off[v]; k < off[v + 1]; k++) {
            int u = adj[k];
            if (u == v || u < 0 || u >= n)
                continue;
            A[(size_t)v * W + (size_t)(u >> 6)] |= (uint64_t)1 << (u & 63);
            A[(size_t)u * W + (size_t)(v >> 6)] |= (uint64_t)1 << (v & 63);
        }
    }
    long long *fill = xmallocarray((size_t)n, sizeof *fill);
    int *deg = xmallocarray((size_t)n, sizeof *deg);
    for (int v = 0; v < n; v++) {
        fill[v] = count_fill(A, alive, W, v, nv);
        int d = 0;
        for (int w = 0; w < W; w++)
            d += popcount64(A[(size_t)v * W + (size_t)w]);
        deg[v] = d;
    }
    int *pos = xmallocarray((size_t)n, sizeof *pos);      /* elimination position */
    int *elim = xmallocarray((size_t)n, sizeof *elim);    /* position -> vertex */
    int *boff = xmallocarray((size_t)n + 1, sizeof *boff);
    int bcap = n * 4 + 16, bn = 0;
    int *bnodes = xmallocarray((size_t)bcap, sizeof *bnodes);
    int rc = ERR_OK;
    for (int i = 0; i < n; i++) {
        /* late eliminations of a wide graph are slow (large fill updates):
         * poll often so the explorer's cancel and quit stay prompt */
        if ((i & 15) == 0) {
            if (progress_cancelled(p)) {
                rc = err_set(e, ERR_CANCELLED, "tree decomposition: cancelled");
                break;
            }
            progress_set(p, 0.5 * i / n);
        }
        int best = -1;
        for (int v = 0; v < n; v++)
            if (bit_get(alive, v) &&
                (best < 0 || fill[v] < fill[best] || (fill[v] == fill[best] && deg[v] < deg[best])))
                best = v;
        int v = best;
        pos[v] = i;
        elim[i] = v;
        const uint64_t *rv = A + (size_t)v * W;
        alive[v >> 6] &= ~((uint64_t)1 << (v & 63));
        for (int w = 0; w < W; w++)
            nv[w] = rv[w] & alive[w];
        /* bag: v and its alive neighbours, sorted */
        boff[i] = bn;
        int bsz = 1 + deg[v];
        if (bn + bsz > bcap) {
            while (bn + bsz > bcap)
                bcap *= 2;
            bnodes = xreallocarray(bnodes, (size_t)bcap, sizeof *bnodes);
        }
        int inserted = 0;
        for (int w = 0; w < W; w++)
            for (uint64_t bits = nv[w]; bits; bits &= bits - 1) {
                int u = w * 64 + __builtin_ctzll(bits);
                if (!inserted && v < u) {
                    bnodes[bn++] = v;
                    inserted = 1;
                }
                bnodes[bn++] = u;
            }
        if (!inserted)
            bnodes[bn++] = v;
        eliminate(A, alive, nv, touch, W, v, fill, deg);
    }
    if (rc == ERR_OK) {
        boff[n] = bn;
        link_bags(td, n, boff, bnodes, pos, elim);
    } else {
        free(boff);
        free(bnodes);
        td->n = 0;
    }
    free(A);
    free(alive);
    free(nv);
    free(touch);
    free(fill);
    free(deg);
    free(pos);
    free(elim);
    return rc;
}

static int uf_find(int *uf, int x)
{
    while (uf[x] != x) {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    return x;
}

/* 1 when bag a ⊆ bag b; mark/stamp is scratch indexed by vertex. */
static int bag_subset(const TreeDec *td, int a, int b, int *mark, int stamp)
{
    int na = td->off[a + 1] - td->off[a], nb = td->off[b + 1] - td->off[b];
    if (na > nb)
        return 0;
    for (int k = td->off[b]; k < td->off[b + 1]; k++)
        mark[td->nodes[k]] = stamp;
    for (int k = td->off[a]; k < td->off[a + 1]; k++)
        if (mark[td->nodes[k]] != stamp)
            return 0;
    return 1;
}

void treedec_shrink(TreeDec *td)
{
    int B = td->nbags;
    if (B <= 1)
        return;
    int *uf = xmallocarray((size_t)B, sizeof *uf);
    int *content = xmallocarray((size_t)B, sizeof *content);  /* set rep -> bag holding its nodes */
    int *mark = xcalloc((size_t)td->n + 1, sizeof *mark);
    int stamp = 0;
    for (int b = 0; b < B; b++)
        uf[b] = content[b] = b;
    /* One pass suffices (Lemma 1): an edge that cannot be contracted now
     * has a vertex on one side its other side can never gain. */
    for (int c = 0; c < B; c++) {
        int p = td->parent[c];
        if (p < 0)
            continue;
        int rc = uf_find(uf, c), rp = uf_find(uf, p);
        if (rc == rp)
            continue;
        int bc = content[rc], bp = content[rp];
        int keep = -1;
        if (bag_subset(td, bc, bp, mark, ++stamp))
            keep = bp;
        else if (bag_subset(td, bp, bc, mark, ++stamp))
            keep = bc;
        if (keep < 0)
            continue;
        uf[rc] = rp;
        content[rp] = keep;
    }
    /* renumber the sets in order of their first bag, copy contents */
    int *newid = xmallocarray((size_t)B, sizeof *newid);
    int nb = 0, tot = 0;
    for (int b = 0; b < B; b++)
        newid[b] = -1;
    for (int b = 0; b < B; b++) {
        int r = uf_find(uf, b);
        if (newid[r] < 0) {
            newid[r] = nb++;
            tot += td->off[content[r] + 1] - td->off[content[r]];
        }
    }
    int *noff = xmallocarray((size_t)nb + 1, sizeof *noff);
    int *nnodes = xmallocarray((size_t)tot + 1, sizeof *nnodes);
    int *rep_of = xmallocarray((size_t)nb, sizeof *rep_of);
    for (int b = 0; b < B; b++)
        if (uf_find(uf, b) == b)
            rep_of[newid[b]] = b;
    int k = 0;
    for (int i = 0; i < nb; i++) {
        int src = content[rep_of[i]];
        noff[i] = k;
        for (int q = td->off[src]; q < td->off[src + 1]; q++)
            nnodes[k++] = td->nodes[q];
    }
    noff[nb] = k;
    /* quotient tree: undirected edges between different sets, then root it
     * at the old root's set by an explicit-stack traversal */
    Csr c;
    csr_begin(&c, nb);
    do
        for (int ch = 0; ch < B; ch++) {
            int p = td->parent[ch];
            if (p < 0)
                continue;
            int a = newid[uf_find(uf, ch)], b = newid[uf_find(uf, p)];
            if (a != b) {
                csr_put(&c, a, b);
                csr_put(&c, b, a);
            }
        }
    while (csr_next(&c));
    int *eoff = c.off, *eadj = c.adj;
    int *npar = xmallocarray((size_t)nb, sizeof *npar);
    for (int i = 0; i < nb; i++)
        npar[i] = -2;
    int nroot = newid[uf_find(uf, td->root)];
    int *stack = xmallocarray((size_t)nb, sizeof *stack);   /* at most nb entries pending */
    int sp = 0;
    npar[nroot] = -1;
    stack[sp++] = nroot;
    while (sp) {
        int x = stack[--sp];
        for (int q = eoff[x]; q < eoff[x + 1]; q++)
            if (npar[eadj[q]] == -2) {
                npar[eadj[q]] = x;
                stack[sp++] = eadj[q];
            }
    }
    free(td->off);
    free(td->nodes);
    free(td->parent);
    td->off = noff;
    td->nodes = nnodes;
    td->parent = npar;
    td->nbags = nb;
    td->root = nroot;
    free(uf);
    free(content);
    free(mark);
    free(newid);
    free(rep_of);
    free(eoff);
    free(eadj);
    free(stack);
}

int treedec_validate(const TreeDec *td, int n, const int *off, const int *adj, char *why,
                     size_t whylen)
{
    int B = td->nbags, bad = 0;
#define FAIL(...)                                  \
    do {                                           \
        snprintf(why, whylen, __VA_ARGS__);        \
        bad = 1;                                   \
        goto out;                                  \
    } while (0)
    int *cnt = xcalloc((size_t)n + 1, sizeof *cnt);     /* bags holding v */
    int *up = xcalloc((size_t)n + 1, sizeof *up);       /* ... whose parent holds v too */
    int *mark = xcalloc((size_t)n + 1, sizeof *mark);
    int *vb_off = xcalloc((size_t)n + 1, sizeof *vb_off);
    int *vb = NULL;
    int roots = 0, width = -1;
    if (n > 0 && B == 0)
        FAIL("no bags for %d vertices", n);
    for (int b = 0; b < B; b++) {
        int p = td->parent[b];
        if (p == -1)
            roots++;
        else if (p < 0 || p >= B)
            FAIL("bag %d: parent %d out of range", b, p);
        if (td->off[b + 1] - td->off[b] - 1 > width)
            width = td->off[b + 1] - td->off[b] - 1;
    }
    if (B && roots != 1)
        FAIL("%d roots", roots);
    if (B && td->parent[td->root] != -1)
        FAIL("root %d has a parent", td->root);
    /* every bag reaches the root within B steps: no cycle */
    for (int b = 0; b < B; b++) {
        int x = b, steps = 0;
        while (x >= 0 && steps <= B) {
            x = td->parent[x];
            steps++;
        }
        if (x >= 0)
            FAIL("bag %d: parent links form a cycle", b);
    }
    if (width != td->width)
        FAIL("width %d, but the largest bag has %d nodes", td->width, width + 1);
    for (int b = 0; b < B; b++) {
        for (int k = td->off[b]; k < td->off[b + 1]; k++) {
            int v = td->nodes[k];
            if (v < 0 || v >= n)
                FAIL("bag %d: vertex %d out of range", b, v);
            if (mark[v] == b + 1)
                FAIL("bag %d: vertex %d twice", b, v);
            mark[v] = b + 1;
            cnt[v]++;
        }
        int p = td->parent[b];
        if (p >= 0)
            for (int k = td->off[p]; k < td->off[p + 1]; k++)
                if (mark[td->nodes[k]] == b + 1)
                    up[td->nodes[k]]++;
    }
    for (int v = 0; v < n; v++) {
        if (!cnt[v])
            FAIL("vertex %d in no bag", v);
        /* a sub-forest of a tree is connected iff it has one more node than edges */
        if (cnt[v] - up[v] != 1)
            FAIL("running intersection: the %d bags holding vertex %d are not connected",
                 cnt[v], v);
    }
    for (int v = 0; v < n; v++)
        vb_off[v + 1] = vb_off[v] + cnt[v];
    vb = xmallocarray((size_t)vb_off[n] + 1, sizeof *vb);
    memset(cnt, 0, (size_t)n * sizeof *cnt);
    for (int b = 0; b < B; b++)
        for (int k = td->off[b]; k < td->off[b + 1]; k++) {
            int v = td->nodes[k];
            vb[vb_off[v] + cnt[v]++] = b;
        }
    for (int v = 0; v < n; v++)
        for (int k = off[v]; k < off[v + 1]; k++) {
            int u = adj[k], found = 0;
            if (u == v)
                continue;
            for (int q = vb_off[v]; q < vb_off[v + 1] && !found; q++) {
                int b = vb[q];
                for (int r = td->off[b]; r < td->off[b + 1]; r++)
                    found |= td->nodes[r] == u;
            }
            if (!found)
                FAIL("edge %d-%d in no bag", v, u);
        }
out:
#undef FAIL
    free(cnt);
    free(up);
    free(mark);
    free(vb_off);
    free(vb);
    return bad ? -1 : 0;
}

int treedec_centroids(const TreeDec *td, int *cpar, int *cdepth, int *csize)
{
    int B = td->nbags;
    if (B == 0)
        return -1;
    /* undirected bag tree in CSR */
    Csr ce;
    csr_begin(&ce, B);
    do
        for (int b = 0; b < B; b++)
            if (td->parent[b] >= 0) {
                csr_put(&ce, b, td->parent[b]);
                csr_put(&ce, td->parent[b], b);
            }
    while (csr_next(&ce));
    int *eoff = ce.off, *eadj = ce.adj;
    unsigned char *removed = xcalloc((size_t)B, 1);
    int *order = xmallocarray((size_t)B, sizeof *order);
    int *from = xmallocarray((size_t)B, sizeof *from);
    int *sub = xmallocarray((size_t)B, sizeof *sub);
    /* pending components: (any bag of it, separator above, depth) */
    int *ws = xmallocarray((size_t)B * 3, sizeof *ws);
    int wn = 0, top = -1;
    ws[wn++] = td->root;
    ws[wn++] = -1;
    ws[wn++] = 0;
    while (wn) {
        int depth = ws[--wn], above = ws[--wn], start = ws[--wn];
        /* the component: breadth-first from start, parents in from[] */
        int cnt = 0;
        order[cnt++] = start;
        from[start] = -1;
        for (int i = 0; i < cnt; i++) {
            int x = order[i];
            for (int q = eoff[x]; q < eoff[x + 1]; q++) {
                int y = eadj[q];
                if (!removed[y] && y != from[x]) {
                    from[y] = x;
                    order[cnt++] = y;
                }
            }
        }
        for (int i = cnt - 1; i >= 0; i--)
            sub[order[i]] = 1;
        for (int i = cnt - 1; i > 0; i--)
            sub[from[order[i]]] += sub[order[i]];
        /* Jordan: a bag whose parts (children's subtrees, everything
         * above it) all have <= cnt/2 bags */
        int c = -1;
        for (int i = 0; i < cnt && c < 0; i++) {
            int x = order[i], big = cnt - sub[x];
            for (int q = eoff[x]; q < eoff[x + 1]; q++) {
                int y = eadj[q];
                if (!removed[y] && y != from[x] && sub[y] > big)
                    big = sub[y];
            }
            if (2 * big <= cnt)
                c = x;
        }
        removed[c] = 1;
        cpar[c] = above;
        cdepth[c] = depth;
        csize[c] = cnt;
        if (above < 0)
            top = c;
        for (int q = eoff[c]; q < eoff[c + 1]; q++)
            if (!removed[eadj[q]]) {
                ws[wn++] = eadj[q];
                ws[wn++] = c;
                ws[wn++] = depth + 1;
            }
    }
    free(eoff);
    free(eadj);
    free(removed);
    free(order);
    free(from);
    free(sub);
    free(ws);
    return top;
}
