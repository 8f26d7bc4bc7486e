/* help.c — the help screen, written from the action table; two columns
 * when one does not fit (80x24 holds every key). */
#include <stdio.h>

#include "ui/crt.h"
#include "ui/keymap.h"
#include "ui/tui.h"

void help_draw(int h, int w)
{
    attron(A_BOLD);
    tui_put(1, 2, w - 4, "Remat Explorer keys (mouse: click the curve or the slider, drag the knob)");
    attroff(A_BOLD);
    int rows = h - 3;   /* rows 2 .. h-2; the last row says how to close */
    if (rows < 1)
        return;
    int ncol = ACT_COUNT > rows ? 2 : 1;
    int per = (ACT_COUNT + ncol - 1) / ncol;
    int colw = (w - 4) / ncol;
    for (int i = 0; i < ACT_COUNT; i++) {
        int c = i / per, r = i % per;
        if (r >= rows)
            continue;
        char line[256];
        if (ncol == 1)
            snprintf(line, sizeof line, "%-10s %-20s %s", keymap[i].label, keymap[i].name, keymap[i].help);
        else
            snprintf(line, sizeof line, "%-9s %s", keymap[i].label, keymap[i].help);
        tui_put(2 + r, 2 + c * colw, colw - 1, line);
    }
    tui_put(h - 1, 2, w - 4, "press any key to close");
}
