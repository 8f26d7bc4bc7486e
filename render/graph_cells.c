/* graph_cells.c — a layered drawing of a graph in terminal cells
 * (graph_cells.h). Sugiyama's steps, kept small: longest-path ranks with
 * sources pulled down next to their first consumer, one pass-through
 * element per rank crossed by a long edge, barycentre ordering sweeps,
 * columns from two greedy placements (left-to-right and right-to-left
 * toward each element's neighbours) averaged, and one horizontal track per
 * edge between two ranks (interval colouring), so edges do not share cells
 * except where they cross. */
#include "render/graph_cells.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"

#define TRACK_MAX 8
#define SWEEPS 6
#define PLACE_ROUNDS 3

typedef struct Elem {
    int node;           /* graph node, or -1 for a pass-through of a long edge */
    int rank, pos, w, x;
    double key;
} Elem;

typedef struct Link {
    int up, down;       /* elements in adjacent ranks */
    int xs, xt, track;  /* departure and arrival columns, horizontal track (-1: straight) */
} Link;

typedef struct Lay {
    Elem *el;
    int ne, cap_e;
    Link *ln;
    int nl, cap_l;
    int *up_off, *up_idx, *dn_off, *dn_idx;    /* links per element */
    int **rank_el;      /* elements of each rank, in order */
    int *rank_n;
    int R;
    struct PathRef {
        int link, nl, u, v;     /* a drawn edge: its first link, link count, ends */
    } *path;
    int np, cap_p;
} Lay;

static int add_elem(Lay *L, int node, int rank, int w, double key)
{
    xgrow((void **)&L->el, &L->cap_e, L->ne + 1, sizeof *L->el);
    L->el[L->ne] = (Elem){node, rank, 0, w, 0, key};
    return L->ne++;
}

static void add_link(Lay *L, int up, int down)
{
    xgrow((void **)&L->ln, &L->cap_l, L->nl + 1, sizeof *L->ln);
    L->ln[L->nl++] = (Link){up, down, 0, 0, -1};
}

void cell_label(const Graph *g, int v, int label_max, char *buf, int n)
{
    const char *id = g->nodes[v].id;
    int len = (int)strlen(id);
    if (label_max > 0 && len > label_max && label_max >= 2) {
        int k = label_max - 1 < n - 2 ? label_max - 1 : n - 2;
        memcpy(buf, id, (size_t)k);
        buf[k] = '~';
        buf[k + 1] = '\0';
        return;
    }
    snprintf(buf, (size_t)n, "%s", id);
}

static int label_len(const Graph *g, int v, int label_max)
{
    int len = (int)strlen(g->nodes[v].id);
    if (label_max > 0 && len > label_max && label_max >= 2)
        len = label_max;
    return len > 0 ? len : 1;
}

/* Ranks: longest path from the sources, then each source moved down to
 * just above its first consumer (parameters sit beside the layer that
 * reads them, not all on the top row). */
static int assign_ranks(const Graph *g, const unsigned char *keep, int *rank)
{
    int R = 0;
    for (int v = 0; v < g->n; v++)
        rank[v] = -1;
    for (int i = 0; i < g->n; i++) {
        int v = g->topo[i];
        if (keep && !keep[v])
            continue;
        int r = 0;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (rank[g->in_idx[k]] >= 0 && rank[g->in_idx[k]] + 1 > r)
                r = rank[g->in_idx[k]] + 1;
        rank[v] = r;
    }
    for (int v = 0; v < g->n; v++) {
        if (rank[v] < 0)
            continue;
        int src = 1;
        for (int k = g->in_off[v]; k < g->in_off[v + 1] && src; k++)
            src = rank[g->in_idx[k]] < 0;
        if (!src)
            continue;
        int m = INT_MAX;
        for (int k = g->out_off[v]; k < g->out_off[v + 1]; k++)
            if (rank[g->out_idx[k]] >= 0 && rank[g->out_idx[k]] < m)
                m = rank[g->out_idx[k]];
        if (m != INT_MAX && m - 1 > rank[v])
            rank[v] = m - 1;
    }
    for (int v = 0; v < g->n; v++)
        if (rank[v] + 1 > R)
            R = rank[v] + 1;
    return R;
}

typedef struct EdgeRef {
    int u, v, span;
} EdgeRef;

static int by_span(const void *a, const void *b)
{
    const EdgeRef *x = a, *y = b;
    if (x->span != y->span)
        return x->span - y->span;
    if (x->v != y->v)
        return x->v - y->v;
    return x->u - y->u;
}

static void build_adjacency(Lay *L)
{
    L->up_off = xcalloc((size_t)L->ne + 1, sizeof *L->up_off);
    L->dn_off = xcalloc((size_t)L->ne + 1, sizeof *L->dn_off);
    for (int i = 0; i < L->nl; i++) {
        L->up_off[L->ln[i].down + 1]++;
        L->dn_off[L->ln[i].up + 1]++;
    }
    for (int i = 0; i < L->ne; i++) {
        L->up_off[i + 1] += L->up_off[i];
        L->dn_off[i + 1] += L->dn_off[i];
    }
    L->up_idx = xmallocarray((size_t)L->nl + 1, sizeof *L->up_idx);
    L->dn_idx = xmallocarray((size_t)L->nl + 1, sizeof *L->dn_idx);
    int *fu = xmallocarray((size_t)L->ne + 1, sizeof *fu), *fd = xmallocarray((size_t)L->ne + 1, sizeof *fd);
    memcpy(fu, L->up_off, (size_t)L->ne * sizeof *fu);
    memcpy(fd, L->dn_off, (size_t)L->ne * sizeof *fd);
    for (int i = 0; i < L->nl; i++) {
        L->up_idx[fu[L->ln[i].down]++] = i;
        L->dn_idx[fd[L->ln[i].up]++] = i;
    }
    free(fu);
    free(fd);
}

/* qsort's comparators read the layout through these; one per thread, so
 * an export's layout and the graph view's can run at once */
static _Thread_local Lay *sort_lay;

static int by_key(const void *a, const void *b)
{
    const Elem *x = &sort_lay->el[*(const int *)a], *y = &sort_lay->el[*(const int *)b];
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->pos - y->pos;
}

static void sort_rank(Lay *L, int r)
{
    sort_lay = L;
    qsort(L->rank_el[r], (size_t)L->rank_n[r], sizeof *L->rank_el[r], by_key);
    for (int i = 0; i < L->rank_n[r]; i++)
        L->el[L->rank_el[r][i]].pos = i;
}

static double center(const Elem *e)
{
    return e->x + (e->w - 1) / 2.0;
}

/* Mean of the neighbours above (below = 0) or below: their positions in
 * their rank (at = 0) or their centre columns (at = 1); 0 when none. */
static int neighbour_mean(const Lay *L, int e, int below, int at, double *out)
{
    const int *off = below ? L->dn_off : L->up_off, *idx = below ? L->dn_idx : L->up_idx;
    int k = off[e + 1] - off[e];
    if (!k)
        return 0;
    double s = 0;
    for (int i = off[e]; i < off[e + 1]; i++) {
        const Link *l = &L->ln[idx[i]];
        const Elem *n = &L->el[below ? l->down : l->up];
        s += at ? center(n) : n->pos;
    }
    *out = s / k;
    return 1;
}

static void order_ranks(Lay *L, Progress *p)
{
    for (int r = 0; r < L->R; r++)
        sort_rank(L, r);
    for (int it = 0; it < SWEEPS && !progress_cancelled(p); it++) {
        int below = it % 2;
        for (int k = 1; k < L->R; k++) {
            int r = below ? L->R - 1 - k : k;
            for (int i = 0; i < L->rank_n[r]; i++) {
                Elem *el = &L->el[L->rank_el[r][i]];
                double b;
                el->key = neighbour_mean(L, L->rank_el[r][i], below, 0, &b) ? b : el->pos;
            }
            sort_rank(L, r);
        }
    }
}

/* Columns between two neighbours: pass-throughs of long edges pack tight. */
static int sep(const Lay *L, int a, int b, int gap)
{
    return L->el[a].node < 0 && L->el[b].node < 0 ? 1 : gap;
}

static void place_rank(Lay *L, int r, int below, int gap, int *xa, int *xb, int *want)
{
    int n = L->rank_n[r];
    const int *es = L->rank_el[r];
    for (int i = 0; i < n; i++) {
        Elem *el = &L->el[es[i]];
        double c;
        if (!neighbour_mean(L, es[i], below, 1, &c))
            c = center(el);
        want[i] = (int)(c - (el->w - 1) / 2.0 + (c >= 0 ? 0.5 : -0.5));
    }
    for (int i = 0; i < n; i++) {
        xa[i] = want[i];
        int d = i ? L->el[es[i - 1]].w + sep(L, es[i - 1], es[i], gap) : 0;
        if (i && xa[i] < xa[i - 1] + d)
            xa[i] = xa[i - 1] + d;
    }
    for (int i = n - 1; i >= 0; i--) {
        xb[i] = want[i];
        int d = i < n - 1 ? L->el[es[i]].w + sep(L, es[i], es[i + 1], gap) : 0;
        if (i < n - 1 && xb[i] > xb[i + 1] - d)
            xb[i] = xb[i + 1] - d;
    }
    for (int i = 0; i < n; i++) {
        int x = (xa[i] + xb[i]) / 2;
        int d = i ? L->el[es[i - 1]].w + sep(L, es[i - 1], es[i], gap) : 0;
        if (i && x < L->el[es[i - 1]].x + d)
            x = L->el[es[i - 1]].x + d;
        L->el[es[i]].x = x;
    }
}

static void place_columns(Lay *L, int gap)
{
    int maxn = 1;
    for (int r = 0; r < L->R; r++) {
        int x = 0;
        for (int i = 0; i < L->rank_n[r]; i++) {
            Elem *el = &L->el[L->rank_el[r][i]];
            el->x = x;
            x += el->w + (i + 1 < L->rank_n[r] ? sep(L, L->rank_el[r][i], L->rank_el[r][i + 1], gap) : 0);
        }
        if (L->rank_n[r] > maxn)
            maxn = L->rank_n[r];
    }
    int *xa = xmallocarray((size_t)maxn, sizeof *xa), *xb = xmallocarray((size_t)maxn, sizeof *xb),
        *want = xmallocarray((size_t)maxn, sizeof *want);
    for (int it = 0; it < PLACE_ROUNDS; it++) {
        for (int r = 1; r < L->R; r++)
            place_rank(L, r, 0, gap, xa, xb, want);
        for (int r = L->R - 2; r >= 0; r--)
            place_rank(L, r, 1, gap, xa, xb, want);
    }
    for (int r = 1; r < L->R; r++)
        place_rank(L, r, 0, gap, xa, xb, want);
    free(xa);
    free(xb);
    free(want);
    int mn = INT_MAX;
    for (int i = 0; i < L->ne; i++)
        if (L->el[i].x < mn)
            mn = L->el[i].x;
    for (int i = 0; i < L->ne; i++)
        L->el[i].x -= mn;
}

static _Thread_local Lay *port_lay;
static _Thread_local int port_below;

/* order links leaving (or entering) one element by the other end's column */
static int by_other_end(const void *a, const void *b)
{
    const Link *x = &port_lay->ln[*(const int *)a], *y = &port_lay->ln[*(const int *)b];
    double cx = center(&port_lay->el[port_below ? x->down : x->up]);
    double cy = center(&port_lay->el[port_below ? y->down : y->up]);
    return cx < cy ? -1 : cx > cy ? 1 : 0;
}

/* Spread an element's links over its label: k links at evenly spaced
 * columns, ordered like their other ends so they do not cross here. */
static void assign_ports(Lay *L)
{
    port_lay = L;
    for (int e = 0; e < L->ne; e++)
        for (port_below = 0; port_below < 2; port_below++) {
            int *off = port_below ? L->dn_off : L->up_off, *idx = port_below ? L->dn_idx : L->up_idx;
            int k = off[e + 1] - off[e];
            if (!k)
                continue;
            qsort(idx + off[e], (size_t)k, sizeof *idx, by_other_end);
            const Elem *el = &L->el[e];
            for (int i = 0; i < k; i++) {
                int col = k == 1 || el->w == 1 ? el->x + (el->w - 1) / 2 : el->x + i * (el->w - 1) / (k - 1);
                Link *l = &L->ln[idx[off[e] + i]];
                if (port_below)
                    l->xs = col;
                else
                    l->xt = col;
            }
        }
}

static int by_left(const void *a, const void *b)
{
    const Link *x = &port_lay->ln[*(const int *)a], *y = &port_lay->ln[*(const int *)b];
    int lx = x->xs < x->xt ? x->xs : x->xt, ly = y->xs < y->xt ? y->xs : y->xt;
    return lx - ly;
}

/* Tracks between rank r and r + 1 for the links leaving rank r; returns
 * the number used. */
static int assign_tracks(Lay *L, const int *links, int n)
{
    int end[TRACK_MAX], used = 0;
    int *ord = xmallocarray((size_t)(n > 0 ? n : 1), sizeof *ord);
    memcpy(ord, links, (size_t)n * sizeof *ord);
    port_lay = L;
    qsort(ord, (size_t)n, sizeof *ord, by_left);
    for (int i = 0; i < n; i++) {
        Link *l = &L->ln[ord[i]];
        if (l->xs == l->xt) {
            l->track = -1;
            continue;
        }
        int lo = l->xs < l->xt ? l->xs : l->xt, hi = l->xs + l->xt - lo, t = -1, fresh = 0;
        for (int k = 0; k < used && t < 0; k++)
            if (end[k] + 1 < lo)
                t = k;
        if (t < 0 && used < TRACK_MAX) {
            t = used++;
            fresh = 1;
        }
        if (t < 0) {    /* full: share the track that ends first */
            t = 0;
            for (int k = 1; k < used; k++)
                if (end[k] < end[t])
                    t = k;
        }
        l->track = t;
        end[t] = fresh || hi > end[t] ? hi : end[t];
    }
    free(ord);
    return used;
}

static void mark(CellLayout *o, int x, int y, unsigned m)
{
    if (x >= 0 && x < o->w && y >= 0 && y < o->h)
        o->edge[(size_t)y * o->w + x] |= (unsigned char)m;
}

static void draw_link(CellLayout *o, const Link *l, int y0, int y1)
{
    if (l->track < 0) {
        for (int y = y0 + 1; y < y1; y++)
            mark(o, l->xs, y, EDGE_UP | EDGE_DOWN);
        return;
    }
    int ty = y0 + 1 + l->track;
    for (int y = y0 + 1; y < ty; y++)
        mark(o, l->xs, y, EDGE_UP | EDGE_DOWN);
    int right = l->xt > l->xs;
    mark(o, l->xs, ty, EDGE_UP | (right ? EDGE_RIGHT : EDGE_LEFT));
    int lo = right ? l->xs : l->xt, hi = right ? l->xt : l->xs;
    for (int x = lo + 1; x < hi; x++)
        mark(o, x, ty, EDGE_LEFT | EDGE_RIGHT);
    mark(o, l->xt, ty, EDGE_DOWN | (right ? EDGE_LEFT : EDGE_RIGHT));
    for (int y = ty + 1; y < y1; y++)
        mark(o, l->xt, y, EDGE_UP | EDGE_DOWN);
}

static void path_point(CellLayout *o, int x, int y)
{
    int k = o->path_off[o->n_paths], k0 = o->path_off[o->n_paths - 1];
    if (k > k0 && o->path_x[k - 1] == x && o->path_y[k - 1] == y)
        return;     /* a pass-through joins two links at one point */
    if (k - 1 > k0 && ((o->path_x[k - 2] == x && o->path_x[k - 1] == x) ||
                       (o->path_y[k - 2] == y && o->path_y[k - 1] == y))) {
        k--;        /* straight on: the last point was no corner */
        o->path_off[o->n_paths]--;
    }
    o->path_x[k] = x;
    o->path_y[k] = y;
    o->path_off[o->n_paths]++;
}

/* Each drawn edge as the polyline its links trace (draw_link's cells). */
static void draw_paths(const Lay *L, const int *ry, CellLayout *o)
{
    o->path_u = xmallocarray((size_t)L->np + 1, sizeof *o->path_u);
    o->path_v = xmallocarray((size_t)L->np + 1, sizeof *o->path_v);
    o->path_off = xcalloc((size_t)L->np + 1, sizeof *o->path_off);
    size_t most = 1;    /* at most four points per link */
    for (int i = 0; i < L->np; i++)
        most += 4 * (size_t)L->path[i].nl;
    o->path_x = xmallocarray(most, sizeof *o->path_x);
    o->path_y = xmallocarray(most, sizeof *o->path_y);
    o->n_paths = 0;
    for (int i = 0; i < L->np; i++) {
        o->path_u[i] = L->path[i].u;
        o->path_v[i] = L->path[i].v;
        o->n_paths = i + 1;
        o->path_off[i + 1] = o->path_off[i];
        for (int j = L->path[i].link; j < L->path[i].link + L->path[i].nl; j++) {
            const Link *l = &L->ln[j];
            int y0 = ry[L->el[l->up].rank], y1 = ry[L->el[l->down].rank];
            path_point(o, l->xs, y0);
            if (l->track >= 0) {
                path_point(o, l->xs, y0 + 1 + l->track);
                path_point(o, l->xt, y0 + 1 + l->track);
            }
            path_point(o, l->xt, y1);
        }
    }
}

static void lay_free(Lay *L)
{
    free(L->path);
    free(L->el);
    free(L->ln);
    free(L->up_off);
    free(L->up_idx);
    free(L->dn_off);
    free(L->dn_idx);
    for (int r = 0; r < L->R; r++)
        free(L->rank_el[r]);
    free(L->rank_el);
    free(L->rank_n);
}

/* Elements for the kept nodes, and for each edge a chain of pass-throughs
 * linking its ends, shortest edges first until the budget of pass-through
 * cells is spent (the rest are counted in out->long_edges). */
static void build_elements(Lay *L, const Graph *g, const int *rank, const CellParams *prm,
                           const int *widths, CellLayout *out)
{
    int *node_el = xmallocarray((size_t)g->n + 1, sizeof *node_el);
    int *topo_pos = xmallocarray((size_t)g->n + 1, sizeof *topo_pos);
    for (int i = 0; i < g->n; i++)
        topo_pos[g->topo[i]] = i;
    for (int v = 0; v < g->n; v++)
        node_el[v] = rank[v] >= 0 ? add_elem(L, v, rank[v],
                                             widths && widths[v] > 0 ? widths[v]
                                                                     : label_len(g, v, prm->label_max),
                                             topo_pos[v])
                                  : -1;
    EdgeRef *er = NULL;
    int ne = 0, cap = 0;
    for (int v = 0; v < g->n; v++)
        for (int k = g->in_off[v]; rank[v] >= 0 && k < g->in_off[v + 1]; k++) {
            int u = g->in_idx[k];
            if (rank[u] < 0)
                continue;
            xgrow((void **)&er, &cap, ne + 1, sizeof *er);
            er[ne++] = (EdgeRef){u, v, rank[v] - rank[u]};
        }
    if (ne)
        qsort(er, (size_t)ne, sizeof *er, by_span);
    long pass = 0;
    for (int i = 0; i < ne; i++) {
        if (pass + er[i].span - 1 > prm->max_pass && er[i].span > 1) {
            out->long_edges++;
            continue;
        }
        pass += er[i].span - 1;
        xgrow((void **)&L->path, &L->cap_p, L->np + 1, sizeof *L->path);
        L->path[L->np++] = (struct PathRef){L->nl, er[i].span, er[i].u, er[i].v};
        int prev = node_el[er[i].u];
        for (int r = rank[er[i].u] + 1; r < rank[er[i].v]; r++) {
            int d = add_elem(L, -1, r, 1, topo_pos[er[i].u] + 0.5);
            add_link(L, prev, d);
            prev = d;
        }
        add_link(L, prev, node_el[er[i].v]);
        out->edges++;
    }
    free(er);
    free(topo_pos);
    free(node_el);
    build_adjacency(L);
    L->rank_n = xcalloc((size_t)L->R + 1, sizeof *L->rank_n);
    L->rank_el = xcalloc((size_t)L->R + 1, sizeof *L->rank_el);
    for (int i = 0; i < L->ne; i++)
        L->rank_n[L->el[i].rank]++;
    for (int r = 0; r < L->R; r++) {
        L->rank_el[r] = xmallocarray((size_t)L->rank_n[r] + 1, sizeof **L->rank_el);
        L->rank_n[r] = 0;
    }
    for (int i = 0; i < L->ne; i++) {
        L->el[i].pos = L->rank_n[L->el[i].rank];
        L->rank_el[L->el[i].rank][L->rank_n[L->el[i].rank]++] = i;
    }
}

/* Rows (a label row per rank, then one row per track to the next), the
 * canvas of edge masks, and the nodes' cells. */
static void draw_layout(Lay *L, int tmin, CellLayout *out)
{
    int *ry = xmallocarray((size_t)L->R + 1, sizeof *ry);
    int *lk = xmallocarray((size_t)L->nl + 1, sizeof *lk);
    int y = 0;
    for (int r = 0; r < L->R; r++) {
        ry[r] = y;
        int m = 0;
        for (int i = 0; i < L->rank_n[r]; i++) {
            int el = L->rank_el[r][i];
            for (int k = L->dn_off[el]; k < L->dn_off[el + 1]; k++)
                lk[m++] = L->dn_idx[k];
        }
        int used = assign_tracks(L, lk, m);
        y += 1 + (used > tmin ? used : tmin);
    }
    free(lk);
    out->ranks = L->R;
    out->h = L->R ? ry[L->R - 1] + 1 : 0;
    for (int i = 0; i < L->ne; i++)
        if (L->el[i].x + L->el[i].w > out->w)
            out->w = L->el[i].x + L->el[i].w;
    out->edge = xcalloc((size_t)out->w * (size_t)out->h + 1, 1);
    for (int i = 0; i < L->nl; i++) {
        const Link *l = &L->ln[i];
        draw_link(out, l, ry[L->el[l->up].rank], ry[L->el[l->down].rank]);
    }
    for (int i = 0; i < L->ne; i++) {
        const Elem *el = &L->el[i];
        if (el->node < 0) {
            mark(out, el->x, ry[el->rank], EDGE_UP | EDGE_DOWN);
        } else {
            out->x[el->node] = el->x;
            out->y[el->node] = ry[el->rank];
            out->len[el->node] = el->w;
        }
    }
    draw_paths(L, ry, out);
    free(ry);
}

int cell_layout(const Graph *g, const unsigned char *keep, const CellParams *prm, CellLayout *out,
                Progress *p, Err *e)
{
    return cell_layout_sized(g, keep, prm, NULL, out, p, e);
}

int cell_layout_sized(const Graph *g, const unsigned char *keep, const CellParams *prm,
                      const int *widths, CellLayout *out, Progress *p, Err *e)
{
    memset(out, 0, sizeof *out);
    out->n = g->n;
    out->x = xmallocarray((size_t)g->n + 1, sizeof *out->x);
    out->y = xmallocarray((size_t)g->n + 1, sizeof *out->y);
    out->len = xcalloc((size_t)g->n + 1, sizeof *out->len);
    for (int v = 0; v < g->n; v++)
        out->x[v] = out->y[v] = -1;
    int *rank = xmallocarray((size_t)g->n + 1, sizeof *rank);
    Lay L;
    memset(&L, 0, sizeof L);
    L.R = assign_ranks(g, keep, rank);
    build_elements(&L, g, rank, prm, widths, out);
    free(rank);
    order_ranks(&L, p);
    if (progress_cancelled(p)) {
        lay_free(&L);
        cell_layout_done(out);
        return err_set(e, ERR_CANCELLED, "layout cancelled");
    }
    place_columns(&L, prm->gap > 0 ? prm->gap : 1);
    assign_ports(&L);
    draw_layout(&L, prm->tracks_min > 0 ? prm->tracks_min : 1, out);
    lay_free(&L);
    return ERR_OK;
}

void cell_layout_done(CellLayout *l)
{
    free(l->x);
    free(l->y);
    free(l->len);
    free(l->edge);
    free(l->path_u);
    free(l->path_v);
    free(l->path_off);
    free(l->path_x);
    free(l->path_y);
    memset(l, 0, sizeof *l);
}

const char *cell_edge_glyph(unsigned m, int ascii)
{
    static const char *const uni[16] = {
        " ",      "\u2502", "\u2502", "\u2502", "\u2500", "\u2518", "\u2510", "\u2524",
        "\u2500", "\u2514", "\u250c", "\u251c", "\u2500", "\u2534", "\u252c", "\u253c",
    };
    static const char *const asc[16] = {" ", "|", "|", "|", "-", "+", "+", "+",
                                        "-", "+", "+", "+", "-", "+", "+", "+"};
    return (ascii ? asc : uni)[m & 15];
}
