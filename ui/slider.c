/* slider.c — the budget slider under every view: the smallest possible
 * peak on the left, the baseline peak on the right, the knob at the wanted
 * budget, the budget with the digits it needs. */
#include <stdio.h>
#include <string.h>

#include "render/plot.h"
#include "ui/crt.h"
#include "ui/tui.h"

void slider_draw(Tui *t, int y, int w)
{
    const Session *s = t->s;
    char lo[48], hi[48], cur[48], head[80], cur2[48];
    /* each end printed with the digits it takes to differ from the budget */
    plot_bytes_pair(s->min_peak, s->budget, lo, sizeof lo, cur, sizeof cur);
    plot_bytes_pair(s->base_peak, s->budget, hi, sizeof hi, cur2, sizeof cur2);
    if (strlen(cur2) > strlen(cur))
        snprintf(cur, sizeof cur, "%s", cur2);
    if (s->have) {  /* as many digits as the status line gives it against the peak */
        char pk[48];
        plot_bytes_pair(s->sim.peak, s->budget, pk, sizeof pk, cur2, sizeof cur2);
        if (strlen(cur2) > strlen(cur))
            snprintf(cur, sizeof cur, "%s", cur2);
    }
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

