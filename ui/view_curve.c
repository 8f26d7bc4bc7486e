/* view_curve.c — the memory-over-time curve: cells computed by
 * render/plot.c, blitted here with block glyphs (or ASCII), the baseline
 * faint behind, the budget line, the peak mark and the time cursor, with a
 * compact inspector for the cursor step underneath. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/explore.h"
#include "render/plot.h"
#include "src/replay.h"
#include "src/units.h"
#include "src/xalloc.h"
#include "ui/crt.h"
#include "ui/tui.h"

static const char *const blocks_u[9] = {" ", "\u2581", "\u2582", "\u2583", "\u2584",
                                        "\u2585", "\u2586", "\u2587", "\u2588"};
static const char *const blocks_a[9] = {" ", ".", ".", "_", "o", "o", "#", "#", "#"};

#define AXIS_W 10

void view_curve_draw(Tui *t, int y, int h, int w)
{
    Session *s = t->s;
    int insp = h >= 14 ? (h / 3 < 7 ? h / 3 : 7) : 0;
    int ph = h - 2 - insp;  /* plot rows; one header row and one axis row */
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
    PlotCell *cells = xmallocarray((size_t)pw * (size_t)ph, sizeof *cells);
    plot_curve(&in, pw, ph, top, cells);
    t->plot_x = AXIS_W + 1;
    t->plot_y = y + 1;
    t->plot_w = pw;
    t->plot_h = ph;
    t->plot_steps = steps;

    char pk[32], head[256];
    if (s->have) {
        units_format_bytes(s->sim.peak, pk, sizeof pk);
        snprintf(head, sizeof head, "peak %s at step %d (%s)", pk, s->sim.peak_step + 1,
                 s->sim.peak_step >= 0 ? s->g->nodes[s->plan.steps[s->sim.peak_step]].id : "-");
    } else {
        snprintf(head, sizeof head, "no plan yet");
    }
    attron(crt_attr(CRT_PEAK));
    tui_put(y, AXIS_W + 1, pw, head);
    attroff(crt_attr(CRT_PEAK));
    int hl = (int)strlen(head) + AXIS_W + 3;
    attron(crt_attr(CRT_BASE));
    tui_put(y, hl, w - hl, crt_ascii() ? "(: baseline, - budget)" : "(\u2591 baseline, \u2500 budget)");
    attroff(crt_attr(CRT_BASE));

    const char *const *bl = crt_ascii() ? blocks_a : blocks_u;
    int every = ph >= 8 ? 4 : 2;
    for (int r = 0; r < ph; r++) {
        char lab[32];
        if (plot_axis_label(r, ph, top, every, lab, sizeof lab)) {
            char padded[48];
            snprintf(padded, sizeof padded, "%*s", AXIS_W, lab);
            tui_put(y + 1 + r, 0, AXIS_W, padded);
        }
        mvaddstr(y + 1 + r, AXIS_W, crt_ascii() ? "|" : "\u2502");
        for (int c = 0; c < pw; c++) {
            const PlotCell *pc = &cells[(size_t)r * pw + c];
            int cur = s->have && plot_step_of_col(c, steps, pw) == t->cursor;
            const char *g = " ";
            int role = 0;
            switch (pc->kind) {
            case PC_PLAN:
                g = bl[pc->eighths];
                role = CRT_CURVE;
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
            mvaddstr(y + 1 + r, AXIS_W + 1 + c, g);
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
                mvaddstr(y + 1 + rows[c], AXIS_W + 1 + c, crt_ascii() ? "x" : "\u00d7");
        attroff(a);
        free(rows);
        free(meas);
        attron(a);
        tui_put(y, w - 12, 12, crt_ascii() ? "x measured" : "\u00d7 measured");
        attroff(a);
    }
    /* time axis */
    int ay = y + 1 + ph;
    tui_put(ay, 0, AXIS_W, "         0");
    mvaddstr(ay, AXIS_W, crt_ascii() ? "+" : "\u2514");
    for (int c = 0; c < pw; c++)
        mvaddstr(ay, AXIS_W + 1 + c, crt_ascii() ? "-" : "\u2500");
    if (s->have) {
        int cc = plot_col_of_step(t->cursor, steps, pw);
        char lab[64];
        snprintf(lab, sizeof lab, "step %d/%d", t->cursor + 1, s->sim.T);
        int lx = AXIS_W + 1 + cc;
        if (lx + (int)strlen(lab) > w)
            lx = w - (int)strlen(lab);
        attron(A_BOLD);
        tui_put(ay, lx, w - lx, lab);
        attroff(A_BOLD);
    }
    if (insp)
        inspector_draw(t, ay + 1, insp, w, 1);
}
