/* group.c — FastSA's node grouping (Algorithm 1, appendix C.1): a node whose
 * value is cheaper to rebuild from its inputs than to keep (its inputs take
 * no more memory than its output) is fused into each later unit that reads
 * it, so every reader recomputes it and the annealer moves the pair as one.
 */
#include <stdlib.h>
#include <string.h>

#include "solvers/fastsa/state.h"
#include "src/base/xalloc.h"

typedef struct {
    int *a;
    int n, cap;
} IVec;

static void ivec_push(IVec *v, int x)
{
    xgrow((void **)&v->a, &v->cap, v->n + 1, sizeof *v->a);
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

/* Fuse position i (value v) into each reader position: members i's then
 * j's, each node once (its first run serves every later member, as they
 * run back to back); inputs: in(i) joins in(j), v leaves it. */
static void fuse_into_readers(IVec *mem, IVec *in, IVec *readers, int *stamp, IVec *tmp, int i, int v)
{
    for (int r = 0; r < readers[v].n; r++) {
        int j = readers[v].a[r];
        tmp->n = 0;
        for (int side = 0; side < 2; side++) {
            const IVec *src = side ? &mem[j] : &mem[i];
            for (int k = 0; k < src->n; k++)
                if (stamp[src->a[k]] != j) {
                    stamp[src->a[k]] = j;
                    ivec_push(tmp, src->a[k]);
                }
        }
        for (int k = 0; k < tmp->n; k++)
            stamp[tmp->a[k]] = -1;
        IVec sw = mem[j];
        mem[j] = *tmp;
        *tmp = sw;
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
}

void units_grouped(Units *U, const Graph *g, const int *order, int L, int cap,
                   const unsigned char *keep, int **seq, int *L2)
{
    int n = g->n;
    memset(U, 0, sizeof *U);
    U->g = g;
    U->is_out = g->is_output;
    U->vsize = xmallocarray((size_t)n + 1, sizeof *U->vsize);
    U->unit_of = xmallocarray((size_t)n + 1, sizeof *U->unit_of);
    for (int v = 0; v < n; v++) {
        U->vsize[v] = g->nodes[v].size;
        U->unit_of[v] = -1;
    }
    IVec *mem = xcalloc((size_t)L + 1, sizeof *mem), *in = xcalloc((size_t)L + 1, sizeof *in);
    IVec *readers = xcalloc((size_t)n + 1, sizeof *readers); /* positions reading value v */
    unsigned char *alive = xmalloc((size_t)L + 1);
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
    int *stamp = xmallocarray((size_t)n + 1, sizeof *stamp);
    for (int v = 0; v < n; v++)
        stamp[v] = -1;
    IVec tmp = {0};
    for (int i = 0; i < L; i++) {
        int v = order[i];
        /* forward values only: a gradient is read once, right away, so
         * fusing it would only pin the backward order */
        if (g->is_output[v] || readers[v].n == 0 || g->nodes[v].phase != PHASE_FWD ||
            (keep && keep[v]))
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
        fuse_into_readers(mem, in, readers, stamp, &tmp, i, v);
        alive[i] = 0;
    }
    int m = 0, maxmem = 1;
    for (int i = 0; i < L; i++) {
        m += alive[i];
        maxmem = mem[i].n > maxmem ? mem[i].n : maxmem;
    }
    U->u = xcalloc((size_t)m + 1, sizeof *U->u);
    *seq = xmallocarray((size_t)m + 1, sizeof **seq);
    int *lastread = xmallocarray((size_t)maxmem, sizeof *lastread);
    for (int i = 0; i < L; i++) {
        if (!alive[i])
            continue;
        Unit *x = &U->u[U->n_units];
        (*seq)[U->n_units] = U->n_units;
        U->unit_of[order[i]] = U->n_units;
        U->n_units++;
        x->in = xmallocarray((size_t)in[i].n + 1, sizeof *x->in);
        if (in[i].n)   /* a unit with no inputs has no array to copy */
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
