/* tui.h — the explorer's shared state (the Session plus the time cursor,
 * the selection, prompts and messages) that every view reads, the entry
 * point called by `remat tui`, and the small drawing helpers the views
 * share. Views see each other only through this state. */
#ifndef REMAT_TUI_H
#define REMAT_TUI_H

#include <stdint.h>

#include "src/session/session.h"
#include "ui/view.h"

typedef struct ReplayUi ReplayUi;
typedef struct ExportUi ExportUi;

enum { PROMPT_NONE, PROMPT_BUDGET, PROMPT_EXPORT, PROMPT_SEARCH, PROMPT_OPTION };
enum { MODE_VIEW, MODE_HELP, MODE_PICKER };

/* Regions of the screen the loop redraws only when marked dirty. */
enum { DIRTY_TABS = 1, DIRTY_BODY = 2, DIRTY_SLIDER = 4, DIRTY_STATUS = 8, DIRTY_BOTTOM = 16,
       DIRTY_ALL = 31 };

typedef struct Tui {
    Session *s;
    View views[VIEW_COUNT];
    int view;               /* the view shown */
    int mode;               /* MODE_*: help and the picker cover the view */
    int cursor;             /* step of the time cursor in the shown plan */
    int sel_group;          /* selected overlay group, -1 none: highlighted everywhere */
    int sel_node;           /* selected node (graph, recompute views), -1 none */
    int help_scroll;
    int picker_sel, picker_opt, picker_in_opts;
    int prompt;
    int tightest_asked;     /* `b min` asked: say what it reached when final */
    char input[256];
    char search[128];       /* the last search text of the graph view */
    unsigned search_gen;    /* bumped by each search typed */
    char msg[512];
    int msg_err;
    double moved_at;        /* want changed, solve not yet asked (debounce); -1: now */
    int dragging;
    int quit;
    unsigned spin;
    unsigned dirty;         /* DIRTY_* */
    /* geometry of the last frame, for the mouse */
    int plot_x, plot_y, plot_w, plot_h, plot_steps;
    int slider_x, slider_y, slider_w;
    ReplayUi *rep;          /* replay task and the last measurement */
    ExportUi *exp;          /* export task */
    int playing;            /* space: the cursor steps on a timer */
    int play_on;            /* the play line is shown (playing or paused) */
    double play_next;       /* monotonic time of the next play step */
} Tui;

/* Run the explorer on g (ownership passes in) until the user quits.
 * cls NULL: session_default_solver(). budget: PLAN_NO_BUDGET (the
 * baseline peak), PLAN_TIGHTEST (the tightest the solver reaches) or
 * bytes. plan_path / replay_path (may be
 * NULL): a remat-plan shown as the current plan, and a remat-replay
 * measurement overlaid on it; cuda: `r` runs the remat-cuda program
 * instead of the CPU replay. Returns 0, or 1 when no terminal could be
 * opened or a file cannot be read (message on stderr). */
int tui_run(Graph *g, const SolverClass *cls, const SolverOpts *opts, int64_t budget, int ascii,
            const char *plan_path, const char *replay_path, int cuda);

/* Put text clipped to width n at (y, x). */
void tui_put(int y, int x, int n, const char *text);
/* The same in attribute a. */
void tui_put_attr(int y, int x, int n, const char *text, unsigned long a);
/* Message line text; err shows it as an error. */
void tui_say(Tui *t, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Clamp *scroll so that n lines in rows rows stay in view; returns it. */
int tui_clamp_scroll(int *scroll, int n, int rows);
/* Spinner character for the current frame. */
char tui_spinner(const Tui *t);

/* Modes drawn over the view (ui/help.c, ui/picker.c). */
void help_draw(Tui *t, int y, int h, int w);
Reaction help_key(Tui *t, int ch);
void picker_open(Tui *t);
void picker_draw(Tui *t, int y, int h, int w);
Reaction picker_key(Tui *t, int ch);
/* The picker's option prompt finished with text (NULL: cancelled). */
Reaction picker_option_commit(Tui *t, const char *text);
/* The slider row (ui/slider.c), and the status and message lines
 * (ui/statusbar.c). */
void slider_draw(Tui *t, int y, int w);
void status_draw(Tui *t, int y, int w);
void bottom_draw(Tui *t, int y, int w);

#endif
