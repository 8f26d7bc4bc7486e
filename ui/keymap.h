/* keymap.h — the explorer's global actions in one X-macro table (tig's
 * REQ_INFO): name, keys, key label and help text. The handlers live in
 * ui/actions.c; the help screen and docs/tui.md are written from this
 * table and from each view's own key table (ViewOps.keys). */
#ifndef REMAT_KEYMAP_H
#define REMAT_KEYMAP_H

#include <curses.h>

#include "ui/view.h"

struct Tui;

/* X(name, key1, key2, label, help) — key2 0 when there is one key. */
#define ACTIONS(X)                                                                        \
    X(quit, 'q', 0, "q", "quit (Ctrl-C too)")                                             \
    X(help, '?', KEY_F(1), "? F1", "help: keys, views, columns")                          \
    X(next_view, '\t', 0, "Tab", "next view")                                             \
    X(prev_view, KEY_BTAB, 0, "S-Tab", "previous view")                                   \
    X(budget_down, KEY_LEFT, 0, "Left", "budget down 1% of the range")                    \
    X(budget_up, KEY_RIGHT, 0, "Right", "budget up 1% of the range")                      \
    X(budget_down_coarse, KEY_NPAGE, 0, "PgDn", "budget down 10% (coarse)")               \
    X(budget_up_coarse, KEY_PPAGE, 0, "PgUp", "budget up 10% (coarse)")                   \
    X(budget_min, '[', 0, "[", "budget to the smallest peak")                             \
    X(budget_max, ']', 0, "]", "budget to the baseline peak")                             \
    X(budget_type, 'b', 0, "b", "type a budget (2GiB, 60%, min)")                              \
    X(cursor_left, 'h', KEY_SLEFT, "h S-Left", "time cursor one step left")               \
    X(cursor_right, 'l', KEY_SRIGHT, "l S-Right", "time cursor one step right")           \
    X(cursor_home, KEY_HOME, 0, "Home", "time cursor to the first step")                  \
    X(cursor_end, KEY_END, 0, "End", "time cursor to the last step")                      \
    X(cursor_peak, 'p', 0, "p", "time cursor to the peak")                                \
    X(group_next, '}', 0, "}", "select the next structure group")                         \
    X(group_prev, '{', 0, "{", "select the previous group")                               \
    X(pin, 'P', 0, "P", "pin the selected node (never recompute)")                        \
    X(force, 'F', 0, "F", "force the selected node (recompute)")                          \
    X(unpin, 'C', 0, "C", "clear every pin and force")                                    \
    X(picker, 'a', 0, "a", "choose the solver, edit its options")                         \
    X(export, 'e', 0, "e", "export .dot .svg .png .json")                                 \
    X(replay, 'r', 0, "r", "replay the plan (CPU or CUDA)")                               \
    X(cancel, 'x', 0, "x", "cancel the running export or replay")                        \
    X(play, ' ', 0, "Space", "play/pause: step the cursor")                               \
    X(play_stop, 27, 0, "Esc", "stop playing, hide its line")                             \
    X(ascii, 'A', 0, "A", "Unicode / ASCII drawing")                                      \
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
/* Run action a (R_NONE for -1). */
Reaction action_run(struct Tui *t, int a);
/* One timer tick of Space's play: the cursor advances when a step is due. */
Reaction actions_play_tick(struct Tui *t);

#endif
