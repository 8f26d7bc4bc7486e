/* view_graph.c — the graph view (filled in below). */
#include "ui/tui.h"

void view_graph_draw(Tui *t, int y, int h, int w)
{
    (void)t;
    tui_put(y, 0, w, "graph view");
    (void)h;
}
