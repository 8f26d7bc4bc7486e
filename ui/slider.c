/* slider.c — the budget slider: min feasible peak on the left, baseline
 * peak on the right, the knob at the wanted budget. */
#include <stdio.h>
#include <string.h>

#include "render/plot.h"
#include "src/units.h"
#include "ui/crt.h"
#include "ui/tui.h"

void slider_draw(Tui *t, int y, int w)
{
    const Session *s = t->s;
    char lo[32], hi[32], cur[32], head[64];
    units_format_bytes(s->min_peak, lo, sizeof lo);
    units_format_bytes(s->base_peak, hi, sizeof hi);
    units_format_bytes(s->budget, cur, sizeof cur);
    snprintf(head, sizeof head, "budget %s ", cur);
    int hl = (int)strlen(head);
    tui_put(y, 0, w, head);
    int x = hl + (int)strlen(lo) + 2;
    int sw = w - x - (int)strlen(hi) - 3;
    if (sw < 5)
        return;
    tui_put(y, hl, w - hl, lo);
    t->slider_x = x;
    t->slider_y = y;
    t->slider_w = sw;
    int knob = plot_slider_col(s->budget, s->min_peak, s->base_peak, sw);
    const char *line = crt_ascii() ? "-" : "\u2500";
    const char *fill = crt_ascii() ? "=" : "\u2501";
    mvaddch(y, x - 1, '[');
    for (int c = 0; c < sw; c++) {
        if (c == knob) {
            attron(crt_attr(CRT_BUDGET) | A_REVERSE);
            mvaddstr(y, x + c, crt_ascii() ? "O" : "\u25c6");
            attroff(crt_attr(CRT_BUDGET) | A_REVERSE);
        } else {
            mvaddstr(y, x + c, c < knob ? fill : line);
        }
    }
    mvaddch(y, x + sw, ']');
    tui_put(y, x + sw + 2, w - x - sw - 2, hi);
}
