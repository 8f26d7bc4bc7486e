/* help.c — the help screen, written from the action table. */
#include <stdio.h>

#include "ui/crt.h"
#include "ui/keymap.h"
#include "ui/tui.h"

void help_draw(int h, int w)
{
    int y = 1;
    attron(A_BOLD);
    tui_put(y++, 2, w - 4, "Remat Explorer keys (mouse: click the curve to move the cursor, click or drag the slider)");
    attroff(A_BOLD);
    y++;
    for (int i = 0; i < ACT_COUNT && y < h - 1; i++) {
        char line[256];
        snprintf(line, sizeof line, "%-10s %-20s %s", keymap[i].label, keymap[i].name, keymap[i].help);
        tui_put(y++, 2, w - 4, line);
    }
    if (y < h - 1)
        tui_put(h - 1, 2, w - 4, "press any key to close");
}
