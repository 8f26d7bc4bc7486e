/* crt.h — the terminal: curses setup and teardown on every exit path,
 * colour pairs (or none under NO_COLOR / monochrome terminals), Unicode or
 * ASCII glyphs, and stderr held while curses owns the screen. */
#ifndef REMAT_CRT_H
#define REMAT_CRT_H

#include <curses.h>

enum {
    CRT_CURVE = 1, CRT_BASE, CRT_BUDGET, CRT_PEAK, CRT_BAR, CRT_ERROR, CRT_TAB, CRT_MEASURED,
    CRT_NODE, CRT_NODE_RECOMP,
    CRT_OVER,       /* memory above the budget; values alive at an over-budget step */
    CRT_RERUN,      /* recomputation steps */
    CRT_SELECT,     /* the selected structure group, everywhere */
    CRT_ALIVE,      /* values alive at the time cursor */
    CRT_EDGE,       /* the graph view's edges */
    CRT_COUNT
};

/* Start curses (REMAT_NO_DISPLAY: on /dev/null). ascii picks ASCII glyphs.
 * Returns 0, or -1 when no terminal could be opened. */
int crt_init(int ascii);
/* Restore the terminal and replay held stderr; safe to call twice. */
void crt_done(void);
/* Attribute for a CRT_* role (colour pair or a monochrome fallback). */
attr_t crt_attr(int role);
int crt_ascii(void);
void crt_set_ascii(int on);
/* Set by SIGINT (Ctrl-C) and SIGTERM; the loop quits when it sees it. */
extern volatile int crt_quit_flag;

#endif
