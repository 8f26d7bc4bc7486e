/* view_curve.c — the memory-over-time curve: cells computed by
 * render/plot.c, blitted here with block glyphs (or ASCII): the plan's
 * curve with the part above the budget in its own colour, the baseline
 * faint behind on its own time axis, the budget line, the peak mark, the
 * time cursor, recomputation steps marked on the time axis, the solver's
 * structure as a band of rows under it (render/band.c), the selected group
 * highlighted in both, and the compact inspector for the cursor step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/band.h"
#include "render/measured.h"
#include "render/play.h"
#include "render/plot.h"
#include "src/replay/replay.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"
#include "ui/crt.h"
#include "ui/replay_ui.h"
#include "ui/tui.h"
#include "ui/widgets.h"

static const char *const blocks_u[9] = {" ", "\u2581", "\u2582", "\u2583", "\u2584",
                                        "\u2585", "\u2586", "\u2587", "\u2588"};
static const char *const blocks_a[9] = {" ", ".", ".", "_", "o", "o", "#", "#", "#"};

#define AXIS_W 10
#define BAND_MAX 3

/* Columns where a step runs a node of group gi (selected group). */
static unsigned char *group_cols(const Session *s, int gi, int steps, int pw)
{
    if (gi < 0 || gi >= s->ov.n)
        return NULL;
    unsigned char *in = xcalloc((size_t)s->g->n + 1, 1), *cols = xcalloc((size_t)pw + 1, 1);
    const OverlayGroup *gr = &s->ov.groups[gi];
    for (int k = 0; k < gr->n; k++)
        in[gr->nodes[k]] = 1;
    for (int t = 0; t < s->plan.T; t++)
        if (in[s->plan.steps[t]]) {
            int c1 = t + 1 < steps ? plot_col_of_step(t + 1, steps, pw) - 1 : pw - 1;
            for (int c = plot_col_of_step(t, steps, pw); c <= c1 || c == plot_col_of_step(t, steps, pw); c++)
                cols[c] = 1;
        }
    free(in);
    return cols;
}

static void draw_header(Tui *t, int y, int w, int pw)
{
    Session *s = t->s;
    char pk[48], bud[48], head[512];
    if (s->have) {
        plot_bytes_pair(s->sim.peak, s->budget, pk, sizeof pk, bud, sizeof bud);
        int n = snprintf(head, sizeof head, "peak %s at step %d (%s)", pk, s->sim.peak_step + 1,
                         s->sim.peak_step >= 0 ? s->g->nodes[s->plan.steps[s->sim.peak_step]].id : "-");
        int over = 0;
        for (int i = 0; i < s->sim.T; i++)
            over += s->sim.mem[i] > s->budget;
        if (over)
            n += snprintf(head + n, sizeof head - (size_t)n, ", %d step%s over the budget", over, plural_s(over));
        if (s->facts.n_rerun_steps)
            snprintf(head + n, sizeof head - (size_t)n, ", %d recomputation step%s", s->facts.n_rerun_steps,
                     plural_s(s->facts.n_rerun_steps));
    } else {
        snprintf(head, sizeof head, "no plan yet");
    }
    tui_put_attr(y, AXIS_W + 1, pw, head, crt_attr(CRT_PEAK));
    int hl = (int)strlen(head) + AXIS_W + 3;
    tui_put_attr(y, hl, w - hl,
                 crt_ascii() ? "(: baseline, - budget, r recompute)" : "(\u2591 baseline, \u2500 budget, \u25b4 recompute)",
                 crt_attr(CRT_BASE));
}

static void draw_plot(Tui *t, int y, int ph, int pw, const PlotInput *in, int64_t top, const unsigned char *sel)
{
    Session *s = t->s;
    int steps = plot_steps(in);
    PlotCell *cells = xmallocarray((size_t)pw * (size_t)ph, sizeof *cells);
    plot_curve(in, pw, ph, top, cells);
    const char *const *bl = crt_ascii() ? blocks_a : blocks_u;
    int every = ph >= 8 ? 4 : 2;
    for (int r = 0; r < ph; r++) {
        char lab[32];
        if (plot_axis_label(r, ph, top, every, lab, sizeof lab)) {
            char padded[48];
            snprintf(padded, sizeof padded, "%*s", AXIS_W, lab);
            tui_put(y + r, 0, AXIS_W, padded);
        }
        mvaddstr(y + r, AXIS_W, crt_ascii() ? "|" : "\u2502");
        for (int c = 0; c < pw; c++) {
            const PlotCell *pc = &cells[(size_t)r * pw + c];
            int cur = s->have && plot_step_of_col(c, steps, pw) == t->cursor;
            const char *g = " ";
            int role = 0;
            switch (pc->kind) {
            case PC_PLAN:
                g = bl[pc->eighths];
                role = pc->over ? CRT_OVER : sel && sel[c] ? CRT_SELECT : CRT_CURVE;
                break;
            case PC_BASE:
                g = crt_ascii() ? ":" : "\u2591";
                role = CRT_BASE;
                break;
            case PC_BUDGET:
                g = crt_ascii() ? "-" : "\u2500";
                role = CRT_BUDGET;
                break;
            case PC_PEAK:
                g = crt_ascii() ? "^" : "\u25b2";
                role = CRT_PEAK;
                break;
            }
            attr_t a = crt_attr(role) | (cur ? A_REVERSE : 0);
            attron(a);
            mvaddstr(y + r, AXIS_W + 1 + c, g);
            attroff(a);
        }
    }
    free(cells);
    /* the measured curve (replay) of this very plan, over the simulated one */
    const Replay *rp = replay_ui_shown(t);
    if (rp) {
        int64_t *meas = xmallocarray((size_t)rp->T, sizeof *meas);
        for (int i = 0; i < rp->T; i++)
            meas[i] = rp->steps[i].measured;
        int *rows = xmallocarray((size_t)pw, sizeof *rows);
        measured_rows(meas, rp->T, steps, pw, ph, top, rows);
        attr_t a = crt_attr(CRT_MEASURED) | A_BOLD;
        attron(a);
        for (int c = 0; c < pw; c++)
            if (rows[c] >= 0)
                mvaddstr(y + rows[c], AXIS_W + 1 + c, crt_ascii() ? "x" : "\u00d7");
        attroff(a);
        free(rows);
        free(meas);
        tui_put_attr(y - 1, AXIS_W + pw - 11, 12, crt_ascii() ? "x measured" : "\u00d7 measured", a);
    }
}

/* The time axis: recomputation steps marked, the cursor's step labelled. */
static void draw_axis(Tui *t, int ay, int pw, int w, int steps)
{
    Session *s = t->s;
    tui_put(ay, 0, AXIS_W, "         0");
    mvaddstr(ay, AXIS_W, crt_ascii() ? "+" : "\u2514");
    unsigned char *re = xcalloc((size_t)pw + 1, 1);
    for (int i = 0; s->have && i < s->plan.T; i++)
        if (s->facts.rerun[i]) {
            int c0 = plot_col_of_step(i, steps, pw), c1 = i + 1 < steps ? plot_col_of_step(i + 1, steps, pw) - 1 : c0;
            for (int c = c0; c <= (c1 > c0 ? c1 : c0); c++)
                re[c] = 1;
        }
    for (int c = 0; c < pw; c++) {
        if (re[c])
            tui_put_attr(ay, AXIS_W + 1 + c, 1, crt_ascii() ? "r" : "\u25b4", crt_attr(CRT_RERUN));
        else
            mvaddstr(ay, AXIS_W + 1 + c, crt_ascii() ? "-" : "\u2500");
    }
    free(re);
    if (s->have) {
        int cc = plot_col_of_step(t->cursor, steps, pw);
        char lab[64];
        snprintf(lab, sizeof lab, "step %d/%d", t->cursor + 1, s->sim.T);
        int lx = AXIS_W + 1 + cc;
        if (lx + (int)strlen(lab) > w)
            lx = w - (int)strlen(lab);
        tui_put_attr(ay, lx, w - lx, lab, A_BOLD);
    }
}

static const char *band_glyph(char ch)
{
    if (crt_ascii())
        return NULL;
    switch (ch) {
    case '[': return "\u251c";
    case ']': return "\u2524";
    case '-': return "\u2500";
    case '~': return "\u2504";
    default: return NULL;
    }
}

/* The structure band: one row per level, the selected group highlighted. */
static void draw_band(Tui *t, int y, int rows, int pw)
{
    Session *s = t->s;
    BandCell *cells = xmallocarray((size_t)rows * (size_t)pw, sizeof *cells);
    band_fill(&s->ov, s->g, s->plan.steps, s->plan.T, s->facts.rerun, pw, rows, cells);
    for (int r = 0; r < rows; r++) {
        char lab[32] = "";
        for (int i = 0; i < s->ov.n; i++)
            if (s->ov.groups[i].level == r || (r == rows - 1 && s->ov.groups[i].level > r)) {
                snprintf(lab, sizeof lab, "%*.*s", AXIS_W, AXIS_W, overlay_kind_name(s->ov.groups[i].kind));
                break;
            }
        tui_put_attr(y + r, 0, AXIS_W, lab, A_DIM);
        for (int c = 0; c < pw; c++) {
            const BandCell *bc = &cells[r * pw + c];
            if (bc->group < 0)
                continue;
            int role = bc->group == t->sel_group ? CRT_SELECT : bc->rerun ? CRT_RERUN : CRT_BUDGET;
            attr_t a = crt_attr(role) | (bc->group == t->sel_group ? A_REVERSE : 0);
            const char *gl = band_glyph(bc->ch);
            char one[2] = {bc->ch, '\0'};
            tui_put_attr(y + r, AXIS_W + 1 + c, 1, gl ? gl : one, a);
        }
    }
    free(cells);
}

static void curve_draw(View *v, Tui *t, int y, int h, int w)
{
    (void)v;
    Session *s = t->s;
    int nb = s->have ? band_rows(&s->ov, h >= 20 ? BAND_MAX : 1) : 0;
    int insp = h >= 14 ? (h / 3 < 7 ? h / 3 : 7) : 0;
    int ph = h - 2 - insp - nb - (t->sel_group >= 0 && nb ? 1 : 0);
    int pw = w - AXIS_W - 1;
    if (ph < 3 || pw < 10)
        return;
    PlotInput in = {
        .mem = s->have ? s->sim.mem : NULL, .T = s->have ? s->sim.T : 0,
        .base = s->base.mem, .TB = s->base.T, .budget = s->budget,
        .peak_step = s->have ? s->sim.peak_step : -1,
    };
    int64_t top = plot_top(&in, ph);
    int steps = plot_steps(&in);
    t->plot_x = AXIS_W + 1;
    t->plot_y = y + 1;
    t->plot_w = pw;
    t->plot_h = ph;
    t->plot_steps = steps;
    draw_header(t, y, w, pw);
    unsigned char *sel = s->have ? group_cols(s, t->sel_group, steps, pw) : NULL;
    draw_plot(t, y + 1, ph, pw, &in, top, sel);
    free(sel);
    int ay = y + 1 + ph;
    draw_axis(t, ay, pw, w, steps);
    int row = ay + 1;
    if (nb) {
        draw_band(t, row, nb, pw);
        row += nb;
        if (t->sel_group >= 0 && t->sel_group < s->ov.n) {
            int first, last, reruns;
            band_group_steps(&s->ov, t->sel_group, s->g, s->plan.steps, s->plan.T, s->facts.rerun, &first,
                             &last, &reruns);
            char line[300];
            int gn = s->ov.groups[t->sel_group].n;
            snprintf(line, sizeof line, "selected %s: %d node%s, first runs at steps %d-%d, %d recomputation step%s ({/} select)",
                     s->ov.groups[t->sel_group].label, gn, plural_s(gn), first + 1, last + 1, reruns, plural_s(reruns));
            tui_put_attr(row++, AXIS_W + 1, pw, line, crt_attr(CRT_SELECT));
        }
    }
    if (insp)
        inspector_table(t, row, y + h - row, w, 1, NULL);
}

static const ViewKey curve_keys[] = {{"click", "move the time cursor to a column"}, {NULL, NULL}};

const ViewOps view_curve_ops = {
    .name = "Curve",
    .help = "memory over time of the shown plan (the part above the budget in red), the baseline "
            "faint behind on its own time axis, recomputation steps marked under it, the solver's "
            "structure as a band of rows (blocks, bags, stages, segments; ~ where they are "
            "recomputed), and what is alive at the cursor",
    .keys = curve_keys,
    .draw = curve_draw,
};
