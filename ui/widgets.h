/* widgets.h — pieces more than one view draws: the live-value table (the
 * Inspector view, and compact under the curve). */
#ifndef REMAT_WIDGETS_H
#define REMAT_WIDGETS_H

struct Tui;

/* The values alive at the time cursor in rows [y, y + h): a title line, a
 * column header, then one value a row from *scroll on (compact: from the
 * first, the last row saying how many more). */
void inspector_table(struct Tui *t, int y, int h, int w, int compact, int *scroll);

#endif
