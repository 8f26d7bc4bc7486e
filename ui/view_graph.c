/* view_graph.c — the Graph view: the graph drawn in cells by
 * render/graph_cells.c (laid out by a task of the session's worker, once
 * per zoom level and focus), every node labelled with its id without overprinting
 * and every edge drawn with box-drawing characters; pan, zoom (shorter
 * labels, tighter spacing), select, search by id or op, and focus on a
 * node and its neighbours. Colours: nodes the plan recomputes, values
 * alive at the time cursor (red when that step is over the budget), the
 * selected structure group. The selected node's details sit beside. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/graph_cells.h"
#include "src/base/strbuf.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"
#include "ui/crt.h"
#include "ui/tui.h"

#define DETAIL_W 30
#define MAX_PASS 20000

typedef struct GraphState {
    int running, failed;
    Err err;                /* why the layout failed */
    /* shown */
    CellLayout l;
    CellParams prm;         /* the parameters it was laid out with */
    int have;
    double lay_zoom;
    int lay_focus;
    double zoom;
    int focus;              /* node in focus, -1: the whole graph */
    int pan_x, pan_y;       /* cell at the window's top-left */
    int vw, vh;
    int placed;             /* pan set for this layout */
    int sel;
    unsigned search_seen;
    char search[128];
} GraphState;

static void params_for(double zoom, CellParams *p)
{
    p->label_max = zoom >= 1 ? 0 : (int)(12 * zoom + 0.5) < 2 ? 2 : (int)(12 * zoom + 0.5);
    p->gap = zoom > 1 ? (int)(2 * zoom + 0.5) : zoom < 0.5 ? 1 : 2;
    p->tracks_min = zoom > 1.2 ? 2 : 1;
    p->max_pass = MAX_PASS;
}

/* One layout: the subset, the parameters, the result (the task's alone
 * while it runs). */
typedef struct LayoutTask {
    GraphState *st;         /* for done, on the UI thread */
    unsigned char *keep;
    CellParams prm;
    CellLayout out;
    int rc;
    Err err;
    double zoom;
    int focus;
} LayoutTask;

static void layout_run(void *arg, TaskCtx *cx)
{
    LayoutTask *x = arg;
    err_clear(&x->err);
    cell_layout_done(&x->out);
    x->rc = cell_layout(cx->g, x->keep, &x->prm, &x->out, cx->p, &x->err);
}

static void layout_done(void *arg, int cancelled)
{
    LayoutTask *x = arg;
    GraphState *st = x->st;
    st->running = 0;
    if (cancelled || x->rc == ERR_CANCELLED)
        return;
    if (x->rc) {
        st->failed = 1;
        st->err = x->err;
        return;
    }
    if (st->have)
        cell_layout_done(&st->l);
    st->l = x->out;
    st->prm = x->prm;
    memset(&x->out, 0, sizeof x->out);
    st->have = 1;
    st->lay_zoom = x->zoom;
    st->lay_focus = x->focus;
    st->placed = 0;
}

static void layout_free(void *arg)
{
    LayoutTask *x = arg;
    cell_layout_done(&x->out);
    free(x->keep);
    free(x);
}

static const TaskOps layout_ops = {"layout", layout_run, layout_done, layout_free};

static void graph_init(View *v, Tui *t)
{
    (void)t;
    GraphState *st = v->st;
    st->zoom = 1;
    st->focus = -1;
    st->lay_focus = -2;
    st->sel = -1;
}

static void graph_free_view(View *v)
{
    GraphState *st = v->st;
    if (st->have)
        cell_layout_done(&st->l);
}

static int graph_busy(const View *v, const Tui *t)
{
    (void)t;
    const GraphState *st = v->st;
    return st->running;
}

static void center_on(GraphState *st, int node)
{
    if (!st->have || node < 0 || node >= st->l.n || st->l.x[node] < 0)
        return;
    st->pan_x = st->l.x[node] + st->l.len[node] / 2 - st->vw / 2;
    st->pan_y = st->l.y[node] - st->vh / 2;
    /* a drawing that fits stays where it is: centred, from its top */
    if (st->l.w <= st->vw)
        st->pan_x = -(st->vw - st->l.w) / 2;
    if (st->l.h <= st->vh)
        st->pan_y = 0;
}

/* The topmost node (then leftmost) of the drawing. */
static int top_node(const CellLayout *l)
{
    int best = -1;
    for (int i = 0; i < l->n; i++)
        if (l->x[i] >= 0 && (best < 0 || l->y[i] < l->y[best] || (l->y[i] == l->y[best] && l->x[i] < l->x[best])))
            best = i;
    return best;
}

/* Start a layout for the wanted zoom and focus when none runs. */
static void start_layout(GraphState *st, Session *s)
{
    LayoutTask *x = xcalloc(1, sizeof *x);
    x->st = st;
    if (st->focus >= 0) {
        const Graph *g = s->g;
        x->keep = xcalloc((size_t)g->n + 1, 1);
        x->keep[st->focus] = 1;
        for (int k = g->in_off[st->focus]; k < g->in_off[st->focus + 1]; k++)
            x->keep[g->in_idx[k]] = 1;
        for (int k = g->out_off[st->focus]; k < g->out_off[st->focus + 1]; k++)
            x->keep[g->out_idx[k]] = 1;
    }
    params_for(st->zoom, &x->prm);
    x->zoom = st->zoom;
    x->focus = st->focus;
    session_task(s, &layout_ops, x);
    st->running = 1;
}

/* Select the next node (after sel, wrapping) whose id or op contains the
 * search text, case-insensitively; dir -1 searches backwards. */
static int search_next(const GraphState *st, const Graph *g, int dir)
{
    if (!st->search[0])
        return -1;
    for (int k = 1; k <= g->n; k++) {
        int v = ((st->sel < 0 ? 0 : st->sel) + dir * k + g->n * 2) % g->n;
        const char *fields[2] = {g->nodes[v].id, g->nodes[v].op};
        for (int f = 0; f < 2; f++)
            for (const char *p = fields[f]; *p; p++) {
                size_t i = 0;
                while (st->search[i] && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)st->search[i]))
                    i++;
                if (!st->search[i])
                    return v;
            }
    }
    return -1;
}

static Reaction select_node(GraphState *st, Tui *t, int v)
{
    st->sel = v;
    t->sel_node = v;
    if (st->focus >= 0 && v != st->focus)
        st->focus = v;      /* focus follows the selection */
    center_on(st, v);
    return R_BODY | R_TAKEN;
}

static Reaction graph_tick(View *v, Tui *t, int shown)
{
    GraphState *st = v->st;
    Reaction r = R_NONE;
    if (shown && st->search_seen != t->search_gen) {
        st->search_seen = t->search_gen;
        snprintf(st->search, sizeof st->search, "%s", t->search);
        int m = search_next(st, t->s->g, 1);
        if (m < 0) {
            tui_say(t, 1, "no node's id or op contains '%s'", st->search);
        } else {
            tui_say(t, 0, "'%s': n/N for the next/previous match, Esc ends the search", st->search);
            r |= select_node(st, t, m);
        }
        r |= R_STATUS;
    }
    if (shown && !st->running && !st->failed && (st->lay_zoom != st->zoom || st->lay_focus != st->focus))
        start_layout(st, t->s);
    return r;
}

static Reaction graph_key(View *v, Tui *t, int ch)
{
    GraphState *st = v->st;
    if (!st->have)
        return ch == '/' ? (t->prompt = PROMPT_SEARCH, t->input[0] = '\0', R_STATUS | R_TAKEN) : R_NONE;
    const Graph *g = t->s->g;
    switch (ch) {
    case KEY_LEFT: case 'h': st->pan_x -= 4; return R_BODY | R_TAKEN;
    case KEY_RIGHT: case 'l': st->pan_x += 4; return R_BODY | R_TAKEN;
    case KEY_UP: case 'k': st->pan_y -= 2; return R_BODY | R_TAKEN;
    case KEY_DOWN: case 'j': st->pan_y += 2; return R_BODY | R_TAKEN;
    case '+': case '=':
        if (st->zoom < 4)
            st->zoom *= 1.5;
        return R_BODY | R_TAKEN;
    case '-':
        if (st->zoom > 0.2)
            st->zoom /= 1.5;
        return R_BODY | R_TAKEN;
    case '/':
        t->prompt = PROMPT_SEARCH;
        t->input[0] = '\0';
        return R_STATUS | R_TAKEN;
    case 'n': case 'N': {
        int d = ch == 'n' ? 1 : -1;
        if (st->search[0]) {
            int m = search_next(st, g, d);
            return m >= 0 ? select_node(st, t, m) : R_TAKEN;
        }
        int s = st->sel;
        for (int k = 0; k < g->n; k++) {
            s = (s + d + g->n) % g->n;
            if (st->focus >= 0 || (st->l.x[s] >= 0))
                break;
        }
        return select_node(st, t, s);
    }
    case 'f': case '\r': case '\n': case KEY_ENTER:
        st->focus = st->focus >= 0 ? -1 : st->sel;
        tui_say(t, 0, st->focus >= 0 ? "focus on %s and its neighbours (f: the whole graph)" : "%s: the whole graph",
                g->nodes[st->sel >= 0 ? st->sel : 0].id);
        return R_BODY | R_STATUS | R_TAKEN;
    case 27:
        if (st->search[0] || t->search[0]) {
            st->search[0] = t->search[0] = '\0';
            tui_say(t, 0, "search ended");
            return R_BODY | R_STATUS | R_TAKEN;
        }
        return R_NONE;
    }
    return R_NONE;
}

static void details(GraphState *st, Tui *t, const unsigned char *alive, int y, int x, int h, int w)
{
    const Session *s = t->s;
    if (st->sel < 0 || st->sel >= s->g->n || w < 10)
        return;
    const Node *nd = &s->g->nodes[st->sel];
    char line[256], sz[32];
    int r = y, runs = s->have ? s->facts.runs[st->sel] : 0;
    tui_put_attr(r++, x, w, "selected node", A_BOLD);
    snprintf(line, sizeof line, "id   %s", nd->id);
    tui_put(r++, x, w, line);
    if ((int)strlen(line) > w && r < y + h)
        tui_put(r++, x, w, line + w);   /* long ids take a second row */
    snprintf(line, sizeof line, "op   %s", nd->op);
    tui_put(r++, x, w, line);
    units_format_bytes(nd->size, sz, sizeof sz);
    snprintf(line, sizeof line, "size %s", sz);
    tui_put(r++, x, w, line);
    snprintf(line, sizeof line, "cost %.6g", nd->cost);
    tui_put(r++, x, w, line);
    snprintf(line, sizeof line, "runs %d%s", runs, runs > 1 ? " (recomputed)" : "");
    tui_put(r++, x, w, line);
    snprintf(line, sizeof line, "in %d, out %d", s->g->in_off[st->sel + 1] - s->g->in_off[st->sel],
             s->g->out_off[st->sel + 1] - s->g->out_off[st->sel]);
    tui_put(r++, x, w, line);
    if (s->have) {
        snprintf(line, sizeof line, "alive at step %d: %s", t->cursor + 1, alive && alive[st->sel] ? "yes" : "no");
        tui_put(r++, x, w, line);
    }
    int gi = -1;
    for (int i = 0; s->have && i < s->ov.n && gi < 0; i++)
        for (int k = 0; k < s->ov.groups[i].n; k++)
            if (s->ov.groups[i].nodes[k] == st->sel)
                gi = i;
    snprintf(line, sizeof line, "group %s", gi >= 0 ? s->ov.groups[gi].label : "-");
    if (r < y + h)
        tui_put(r++, x, w, line);
    if (r + 1 < y + h) {
        snprintf(line, sizeof line, "node %d of %d", st->sel + 1, s->g->n);
        tui_put(++r, x, w, line);
    }
    r += 2;
    static const struct { int role; const char *what; } legend[] = {
        {CRT_NODE_RECOMP, "recomputed by the plan"},
        {CRT_ALIVE, "alive at the cursor"},
        {CRT_OVER, "alive, step over budget"},
        {CRT_SELECT, "in the selected group"},
    };
    for (size_t i = 0; i < sizeof legend / sizeof legend[0] && r < y + h; i++, r++)
        tui_put_attr(r, x, w, legend[i].what, crt_attr(legend[i].role));
}

/* Attribute of node i's label. */
static attr_t node_attr(const GraphState *st, const Tui *t, const unsigned char *alive, const unsigned char *group,
                        int over, int i)
{
    const Session *s = t->s;
    int role = CRT_NODE;
    if (group && group[i])
        role = CRT_SELECT;
    if (s->have && s->facts.runs[i] > 1)
        role = CRT_NODE_RECOMP;
    if (alive && alive[i])
        role = over ? CRT_OVER : CRT_ALIVE;
    return crt_attr(role) | (i == st->sel ? A_REVERSE | A_BOLD : 0);
}

static void graph_draw(View *v, Tui *t, int y, int h, int w)
{
    GraphState *st = v->st;
    const Session *s = t->s;
    char line[512];
    if (st->failed) {
        tui_put_attr(y, 0, w, st->err.msg, crt_attr(CRT_ERROR));
        return;
    }
    if (!st->have) {
        snprintf(line, sizeof line, "%c laying out %d nodes...", tui_spinner(t), s->g->n);
        tui_put(y, 0, w, line);
        return;
    }
    int gw = w - DETAIL_W - 1, gh = h - 1;
    if (gw < 10 || gh < 3)
        return;
    st->vw = gw;
    st->vh = gh;
    if (!st->placed) {
        if (st->sel < 0 || st->l.x[st->sel] < 0) {
            st->sel = st->lay_focus >= 0 ? st->lay_focus : top_node(&st->l);
            t->sel_node = st->sel;
            center_on(st, st->sel);
            if (st->lay_focus < 0)
                st->pan_y = 0;     /* the whole graph opens at its top */
        } else {
            center_on(st, st->sel);
        }
        st->placed = 1;
    }
    t->sel_node = st->sel;  /* what P and F act on while this view is shown */
    size_t n = 0;   /* a graph name or focused id can be longer than the line */
    fb_put(line, sizeof line, &n, "%s: %d nodes, zoom %.2gx", s->g->name[0] ? s->g->name : "graph", s->g->n,
           st->zoom);
    if (st->focus >= 0)
        fb_put(line, sizeof line, &n, ", focus %s", s->g->nodes[st->focus].id);
    if (st->l.long_edges)
        fb_put(line, sizeof line, &n, ", %d long edges not drawn", st->l.long_edges);
    if (st->running)
        fb_put(line, sizeof line, &n, " %c", tui_spinner(t));
    fb_put(line, sizeof line, &n, " (arrows pan, +/- zoom, n/N, / search, f focus)");
    tui_put_attr(y, 0, w, line, A_BOLD);
    /* what is alive at the cursor, and the selected group */
    unsigned char *alive = NULL, *group = NULL;
    int over = 0;
    if (s->have) {
        LiveValue *lv;
        int m = sim_live_at(s->g, s->plan.steps, &s->sim, t->cursor, &lv);
        alive = xcalloc((size_t)s->g->n + 1, 1);
        for (int i = 0; i < m; i++)
            if (lv[i].reason != LIVE_WORKSPACE)
                alive[lv[i].node] = 1;
        if (m >= 0)
            free(lv);
        over = s->sim.mem[t->cursor] > s->budget;
        if (t->sel_group >= 0 && t->sel_group < s->ov.n) {
            group = xcalloc((size_t)s->g->n + 1, 1);
            for (int k = 0; k < s->ov.groups[t->sel_group].n; k++)
                group[s->ov.groups[t->sel_group].nodes[k]] = 1;
        }
    }
    attr_t ea = crt_attr(CRT_EDGE);
    for (int r = 0; r < gh; r++) {
        int ly = st->pan_y + r;
        if (ly < 0 || ly >= st->l.h)
            continue;
        for (int c = 0; c < gw; c++) {
            int lx = st->pan_x + c;
            if (lx < 0 || lx >= st->l.w)
                continue;
            unsigned m = st->l.edge[(size_t)ly * st->l.w + lx];
            if (m)
                tui_put_attr(y + 1 + r, c, 1, cell_edge_glyph(m, crt_ascii()), ea);
        }
    }
    for (int i = 0; i < st->l.n; i++) {
        if (st->l.x[i] < 0)
            continue;
        int r = st->l.y[i] - st->pan_y, c = st->l.x[i] - st->pan_x;
        if (r < 0 || r >= gh || c + st->l.len[i] <= 0 || c >= gw)
            continue;
        char lab[256];
        cell_label(s->g, i, st->prm.label_max, lab, sizeof lab);
        const char *p = lab;
        int len = st->l.len[i];
        if (c < 0) {
            p += -c;
            len += c;
            c = 0;
        }
        if (c + len > gw)
            len = gw - c;
        tui_put_attr(y + 1 + r, c, len, p, node_attr(st, t, alive, group, over, i));
    }
    for (int r = 0; r < gh; r++)
        mvaddstr(y + 1 + r, gw, crt_ascii() ? "|" : "\u2502");
    details(st, t, alive, y + 1, gw + 2, gh, DETAIL_W - 1);
    free(alive);
    free(group);
}

static const ViewKey graph_keys[] = {
    {"arrows", "pan (also h j k l)"},
    {"+ -", "zoom: wider spacing, or shorter labels and tighter spacing"},
    {"n N", "next / previous node (or search match)"},
    {"/", "search a node by id or op (Esc ends the search)"},
    {"f Enter", "focus on the selected node and its neighbours (again: whole graph)"},
    {NULL, NULL},
};

const ViewOps view_graph_ops = {
    .name = "Graph",
    .help = "the graph itself, nodes by rank with every edge drawn; colours show what the plan "
            "recomputes, what is alive at the time cursor (red when that step is over the "
            "budget) and the selected structure group; the selected node's details beside",
    .keys = graph_keys,
    .state_size = sizeof(GraphState),
    .init = graph_init,
    .draw = graph_draw,
    .key = graph_key,
    .tick = graph_tick,
    .busy = graph_busy,
    .free = graph_free_view,
};
