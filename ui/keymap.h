/* keymap.h — every action of the explorer in one X-macro table (tig's
 * REQ_INFO): name, keys, key label and help text. The handlers live in
 * tui.c; the help screen and docs/tui.md are written from this table. */
#ifndef REMAT_KEYMAP_H
#define REMAT_KEYMAP_H

#include <curses.h>

/* X(name, key1, key2, label, help) — key2 0 when there is one key; help
 * at most 27 characters so two columns fit 80x24. */
#define ACTIONS(X)                                                                       \
    X(quit, 'q', 0, "q", "quit")                              \
    X(help, '?', KEY_F(1), "? F1", "this help (any key closes)")                       \
    X(next_view, '\t', 0, "Tab", "next view")   \
    X(prev_view, KEY_BTAB, 0, "S-Tab", "previous view")                                  \
    X(budget_down, KEY_LEFT, 0, "Left", "budget down 1% (fine)")           \
    X(budget_up, KEY_RIGHT, 0, "Right", "budget up 1% (fine)")             \
    X(budget_down_coarse, KEY_NPAGE, 0, "PgDn", "budget down 10% (coarse)")      \
    X(budget_up_coarse, KEY_PPAGE, 0, "PgUp", "budget up 10% (coarse)")          \
    X(budget_min, '[', 0, "[", "budget to smallest peak")                   \
    X(budget_max, ']', 0, "]", "budget to baseline peak")                            \
    X(budget_type, 'b', 0, "b", "type a budget (2GiB, 60%)")                     \
    X(cursor_left, 'h', KEY_SLEFT, "h S-Left", "cursor one step left")              \
    X(cursor_right, 'l', KEY_SRIGHT, "l S-Right", "cursor one step right")          \
    X(cursor_home, KEY_HOME, 0, "Home", "cursor to the first step")                 \
    X(cursor_end, KEY_END, 0, "End", "cursor to the last step")                     \
    X(cursor_peak, 'p', 0, "p", "cursor to the peak")                               \
    X(scroll_up, 'k', KEY_UP, "k Up", "scroll up")                              \
    X(scroll_down, 'j', KEY_DOWN, "j Down", "scroll down")                      \
    X(picker, 'a', 0, "a", "choose the solver")                              \
    X(export, 'e', 0, "e", "export .dot .svg .png .json")      \
    X(replay, 'r', 0, "r", "replay the plan (CPU)")                             \
    X(play, ' ', 0, "Space", "play/pause: step the cursor")                     \
    X(play_stop, 27, 0, "Esc", "stop playing, hide its line")                   \
    X(zoom_in, '+', '=', "+", "graph view: zoom in")                             \
    X(zoom_out, '-', 0, "-", "graph view: zoom out")                            \
    X(node_next, 'n', 0, "n", "graph view: next node")                          \
    X(node_prev, 'N', 0, "N", "graph view: previous node")                      \
    X(ascii, 'A', 0, "A", "Unicode / ASCII drawing")                              \
    X(redraw, 12, 0, "C-l", "redraw the screen")

enum {
#define X(name, k1, k2, label, help) ACT_##name,
    ACTIONS(X)
#undef X
    ACT_COUNT
};

typedef struct Action {
    const char *name, *label, *help;
    int key1, key2;
} Action;

extern const Action keymap[ACT_COUNT];
/* Action bound to key, or -1. */
int keymap_find(int key);

#endif
