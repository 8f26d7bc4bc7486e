/* view_graph.c — the Graph view: Graphviz's dot layout of the graph
 * (render/layout.c, computed once per graph in a background thread, since
 * dot takes seconds on large graphs), drawn as short node labels clipped to
 * the window, with pan (arrows / hjkl), zoom (+/-), node selection (n/N)
 * and the selected node's details beside the drawing. Nodes the plan runs
 * more than once and the solver's overlay groups get their own colours. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/explore.h"
#include "render/layout.h"
#include "src/fit.h"
#include "src/units.h"
#include "src/xalloc.h"
#include "ui/bg.h"
#include "ui/crt.h"
#include "ui/tui.h"

#define DETAIL_W 30
#define LABEL_MAX 8

struct GraphView {
    Bg bg;
    int running, have, failed;
    /* task: a private copy of the graph, so a layout still running at quit
     * never reads the session's freed graph */
    Graph *g;
    Layout l;
    int rc;
    Err err;
    /* view */
    Viewport vp;
    int fitted;
    int sel;
};

/* a layout still running at quit is left to the exiting process; kept
 * reachable here so leak checkers do not count it */
static GraphView *abandoned;

static void *layout_work(void *arg)
{
    GraphView *v = arg;
    err_clear(&v->err);
    v->rc = layout_graph(v->g, NULL, NULL, &v->l, &v->err);
    return NULL;
}

GraphView *graph_view_new(void)
{
    GraphView *v = xcalloc(1, sizeof *v);
    if (bg_init(&v->bg)) {
        free(v);
        return NULL;
    }
    return v;
}

void graph_view_free(GraphView *v)
{
    if (!v)
        return;
    if (v->running && !bg_done(&v->bg)) {
        pthread_detach(v->bg.th);
        abandoned = v;
        return;
    }
    bg_free(&v->bg);
    if (v->have)
        layout_done(&v->l);
    graph_free(v->g);
    free(v);
}

int graph_view_fd(const GraphView *v)
{
    return v ? v->bg.fd[0] : -1;
}

int graph_view_busy(const GraphView *v)
{
    return v && v->running;
}

void graph_view_tick(Tui *t)
{
    GraphView *v = t->gv;
    if (!v)
        return;
    if (v->running && bg_reap(&v->bg)) {
        v->running = 0;
        if (v->rc)
            v->failed = 1;
        else
            v->have = 1;
    }
    if (t->view == VIEW_GRAPH && !v->running && !v->have && !v->failed) {
        graph_free(v->g);
        v->g = graph_clone(t->s->g);
        if (bg_start(&v->bg, layout_work, v) == 0)
            v->running = 1;
        else {
            v->failed = 1;
            err_set(&v->err, ERR_IO, "cannot start the layout thread");
        }
    }
}

static void center_sel(GraphView *v)
{
    if (v->sel >= 0 && v->sel < v->l.n && !isnan(v->l.x[v->sel]))
        viewport_center(&v->vp, v->l.x[v->sel], v->l.y[v->sel]);
}

int graph_view_key(Tui *t, int ch)
{
    GraphView *v = t->gv;
    if (!v || !v->have || t->view != VIEW_GRAPH)
        return 0;
    int n = v->l.n;
    switch (ch) {
    case KEY_LEFT: case 'h': viewport_pan(&v->vp, -4, 0); return 1;
    case KEY_RIGHT: case 'l': viewport_pan(&v->vp, 4, 0); return 1;
    case KEY_UP: case 'k': viewport_pan(&v->vp, 0, -2); return 1;
    case KEY_DOWN: case 'j': viewport_pan(&v->vp, 0, 2); return 1;
    case '+': case '=':
        if (v->vp.zoom < 64) {
            v->vp.zoom *= 1.5;
            center_sel(v);
        }
        return 1;
    case '-':
        if (v->vp.zoom > 0.2) {
            v->vp.zoom /= 1.5;
            center_sel(v);
        }
        return 1;
    case 'n': case 'N':
        if (n == 0)
            return 1;
        for (int k = 0; k < n; k++) {
            v->sel = ch == 'n' ? (v->sel + 1) % n : (v->sel + n - 1) % n;
            if (!isnan(v->l.x[v->sel]))
                break;
        }
        center_sel(v);
        return 1;
    }
    return 0;
}

/* index of the first overlay group holding node u, or -1 */
static int group_of(const Overlay *ov, int u)
{
    int best = -1;
    for (int i = 0; i < ov->n; i++)
        for (int k = 0; k < ov->groups[i].n; k++)
            if (ov->groups[i].nodes[k] == u && (best < 0 || ov->groups[i].level > ov->groups[best].level))
                best = i;
    return best;
}

static void details(Tui *t, const int *runs, int y, int x, int h, int w)
{
    GraphView *v = t->gv;
    const Session *s = t->s;
    if (v->sel < 0 || v->sel >= s->g->n || w < 10)
        return;
    const Node *nd = &s->g->nodes[v->sel];
    char line[256], sz[32];
    int r = y;
    attron(A_BOLD);
    tui_put(r++, x, w, "selected node");
    attroff(A_BOLD);
    snprintf(line, sizeof line, "id   %s", nd->id);
    tui_put(r++, x, w, line);
    snprintf(line, sizeof line, "op   %s", nd->op);
    tui_put(r++, x, w, line);
    units_format_bytes(nd->size, sz, sizeof sz);
    snprintf(line, sizeof line, "size %s", sz);
    tui_put(r++, x, w, line);
    snprintf(line, sizeof line, "cost %.6g", nd->cost);
    tui_put(r++, x, w, line);
    snprintf(line, sizeof line, "runs %d%s", runs ? runs[v->sel] : 0, runs && runs[v->sel] > 1 ? " (recomputed)" : "");
    tui_put(r++, x, w, line);
    int gi = s->have ? group_of(&s->ov, v->sel) : -1;
    snprintf(line, sizeof line, "group %s", gi >= 0 ? s->ov.groups[gi].label : "-");
    if (r < y + h)
        tui_put(r++, x, w, line);
    if (r + 1 < y + h) {
        snprintf(line, sizeof line, "node %d of %d", v->sel + 1, s->g->n);
        tui_put(++r, x, w, line);
    }
}

void view_graph_draw(Tui *t, int y, int h, int w)
{
    GraphView *v = t->gv;
    const Session *s = t->s;
    char line[512];
    if (!v) {
        tui_put(y, 0, w, "graph view unavailable");
        return;
    }
    if (v->failed) {
        attron(crt_attr(CRT_ERROR));
        tui_put(y, 0, w, v->err.msg);
        attroff(crt_attr(CRT_ERROR));
        return;
    }
    if (!v->have) {
        static const char spin[] = "|/-\\";
        snprintf(line, sizeof line, "%c laying out %d nodes with Graphviz dot...", spin[t->spin % 4], s->g->n);
        tui_put(y, 0, w, line);
        return;
    }
    int gw = w - DETAIL_W - 1, gh = h - 1;
    if (gw < 10 || gh < 3)
        return;
    if (!v->fitted || v->vp.w != gw || v->vp.h != gh) {
        double z = v->fitted ? v->vp.zoom : 1, px = v->vp.pan_x, py = v->vp.pan_y;
        viewport_fit(&v->vp, v->l.width, v->l.height, gw, gh);
        if (v->fitted) {
            v->vp.zoom = z;
            v->vp.pan_x = px;
            v->vp.pan_y = py;
        } else {
            /* readable labels: about one node label per 10 columns of the
             * widest rank; start at the top centre */
            v->vp.zoom = 1;
            v->fitted = 1;
            v->sel = 0;
            for (int i = 0; i < v->l.n; i++)
                if (!isnan(v->l.y[i]) && (isnan(v->l.y[v->sel]) || v->l.y[i] > v->l.y[v->sel]))
                    v->sel = i;
        }
    }
    int *runs = NULL;
    if (s->have) {
        runs = xcalloc((size_t)s->g->n, sizeof *runs);
        for (int i = 0; i < s->plan.T; i++)
            runs[s->plan.steps[i]]++;
    }
    snprintf(line, sizeof line, "%s: %d nodes, zoom %.2gx (arrows/hjkl pan, +/- zoom, n/N select)",
             s->g->name[0] ? s->g->name : "graph", s->g->n, v->vp.zoom);
    attron(A_BOLD);
    tui_put(y, 0, w, line);
    attroff(A_BOLD);
    static const int group_roles[] = {CRT_CURVE, CRT_BUDGET, CRT_MEASURED, CRT_BASE};
    for (int i = 0; i < v->l.n; i++) {
        int c, r;
        if (isnan(v->l.x[i]) || !viewport_cell(&v->vp, v->l.x[i], v->l.y[i], &c, &r))
            continue;
        char lab[LABEL_MAX + 1];
        snprintf(lab, sizeof lab, "%s", s->g->nodes[i].id);
        int len = (int)strlen(lab);
        int x0 = c - len / 2;
        if (x0 < 0)
            x0 = 0;
        if (x0 + len > gw)
            len = gw - x0;
        if (len <= 0)
            continue;
        int role = CRT_NODE;
        if (runs && runs[i] > 1)
            role = CRT_NODE_RECOMP;
        else if (s->have && s->ov.n) {
            int gi = group_of(&s->ov, i);
            if (gi >= 0)
                role = group_roles[gi % 4];
        }
        attr_t a = crt_attr(role) | (i == v->sel ? A_REVERSE | A_BOLD : 0);
        attron(a);
        mvaddnstr(y + 1 + r, x0, lab, len);
        attroff(a);
    }
    for (int r = 0; r < gh; r++)
        mvaddstr(y + 1 + r, gw, crt_ascii() ? "|" : "\u2502");
    details(t, runs, y + 1, gw + 2, gh, DETAIL_W - 1);
    if (runs) {
        attron(crt_attr(CRT_NODE_RECOMP));
        tui_put(y + gh, gw + 2, DETAIL_W - 1, "recomputed: yellow");
        attroff(crt_attr(CRT_NODE_RECOMP));
    }
    free(runs);
}
