/* view.h — the explorer's views as a table (tig's view ops): each view is
 * a name, a one-line description for the help screen, and its operations
 * over a private state. Key handlers and ticks return reaction flags
 * (htop's Htop_Reaction) that the main loop turns into dirty bits, so a
 * frame redraws only what changed.
 */
#ifndef REMAT_VIEW_H
#define REMAT_VIEW_H

#include <stddef.h>

struct Tui;

/* What a handler wants done next. */
typedef unsigned Reaction;
enum {
    R_NONE = 0,
    R_TAKEN = 1u << 0,      /* the key was this handler's */
    R_BODY = 1u << 1,       /* redraw the view */
    R_STATUS = 1u << 2,     /* redraw the slider, status and message lines */
    R_ALL = 1u << 3,        /* redraw everything (tabs, another view, resize) */
    R_SOLVE = 1u << 4,      /* want changed: solve after the debounce (the main loop's timer) */
    R_SOLVE_NOW = 1u << 5,  /* want changed: solve at once */
    R_QUIT = 1u << 6,
};

typedef struct View View;

/* One key of a view, for the help screen. */
typedef struct ViewKey {
    const char *label, *help;
} ViewKey;

typedef struct ViewOps {
    const char *name;       /* tab label */
    const char *help;       /* what the view shows, for the help screen */
    const ViewKey *keys;    /* the view's own keys, {NULL} last; may be NULL */
    size_t state_size;      /* private state, zeroed, owned by the view */
    void (*init)(View *v, struct Tui *t);                   /* optional */
    /* Draw rows [y, y + h) of width w, the view's header on row y. */
    void (*draw)(View *v, struct Tui *t, int y, int h, int w);
    /* A key while the view is shown: R_TAKEN (and what to redraw) when
     * it was the view's, else R_NONE. Optional. */
    Reaction (*key)(View *v, struct Tui *t, int ch);
    /* Every loop, shown or not: ask the session for what the view needs
     * (shown: 1 when it is the current view); the answers land through
     * the session's worker. Optional. */
    Reaction (*tick)(View *v, struct Tui *t, int shown);
    /* 1 while the view shows something moving (a spinner). */
    int (*busy)(const View *v, const struct Tui *t);
    void (*free)(View *v);                                  /* optional */
} ViewOps;

struct View {
    const ViewOps *ops;
    void *st;               /* state_size bytes */
};

enum { VIEW_CURVE, VIEW_INSPECT, VIEW_RECOMPUTE, VIEW_STRUCTURE, VIEW_COMPARE, VIEW_GRAPH, VIEW_COUNT };

extern const ViewOps view_curve_ops, view_inspect_ops, view_recompute_ops, view_structure_ops,
    view_compare_ops, view_graph_ops;

/* The table, in tab order. */
extern const ViewOps *const view_table[VIEW_COUNT];

#endif
