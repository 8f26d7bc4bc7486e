/* tui.h — the explorer's state shared by its views (ncdu-style screens:
 * each view is a draw function over the Session plus a little scroll
 * state), and the entry point called by `remat tui`. */
#ifndef REMAT_TUI_H
#define REMAT_TUI_H

#include <stdint.h>

#include "src/session.h"

enum { VIEW_CURVE, VIEW_INSPECT, VIEW_RECOMPUTED, VIEW_STRUCTURE, VIEW_COMPARE, VIEW_GRAPH, VIEW_COUNT };

/* points of the Compare view's budget sweep */
#define COMPARE_SWEEP_N 10

typedef struct Compare Compare;
typedef struct ReplayUi ReplayUi;
typedef struct GraphView GraphView;
struct Replay;
struct Plan;
enum { PROMPT_NONE, PROMPT_BUDGET, PROMPT_EXPORT };

typedef struct Tui {
    Session *s;
    int view;
    int cursor;             /* step of the time cursor in the shown plan */
    int scroll;             /* first line of list views */
    int help, picker, picker_sel;
    int prompt;
    char input[256];
    char msg[512];
    int msg_err;
    double moved_at;        /* budget moved, solve not yet asked (debounce) */
    int dragging;
    int quit;
    unsigned spin;
    /* geometry of the last frame, for the mouse */
    int plot_x, plot_y, plot_w, plot_h, plot_steps;
    int slider_x, slider_y, slider_w;
    Compare *cmp;           /* compare view state and its background task */
    ReplayUi *rep;          /* replay task and the last measurement */
    GraphView *gv;          /* graph view: layout task, viewport, selection */
    int playing;            /* space: the cursor steps on a timer */
    int play_on;            /* the play line is shown (playing or paused) */
    double play_next;       /* monotonic time of the next play step */
} Tui;

/* Run the explorer on g (ownership passes in) until the user quits.
 * plan_path / replay_path (may be NULL): a remat-plan shown as the current
 * plan, and a remat-replay measurement overlaid on it; cuda: `r` runs the
 * remat-cuda program instead of the CPU replay. Returns 0, or 1 when
 * no terminal could be opened or a file cannot be read (message on stderr). */
int tui_run(Graph *g, const SolverClass *cls, const SolverOpts *opts, int64_t budget, int ascii,
            const char *plan_path, const char *replay_path, int cuda);

/* views (ui/view_curve.c, ui/inspector.c, ui/view_structure.c, ui/slider.c,
 * ui/picker.c, ui/help.c): draw into stdscr rows [y, y+h). */
void view_curve_draw(Tui *t, int y, int h, int w);
void inspector_draw(Tui *t, int y, int h, int w, int compact);
void view_recomputed_draw(Tui *t, int y, int h, int w);
void view_structure_draw(Tui *t, int y, int h, int w);
void view_graph_draw(Tui *t, int y, int h, int w);
void slider_draw(Tui *t, int y, int w);
void picker_draw(Tui *t, int h, int w);
int picker_key(Tui *t, int ch);     /* 1 when the key was taken */
void help_draw(int h, int w);
/* Compare view (ui/compare.c): compare_tick starts or collects the
 * background work for the current (budget, solver) when the view is shown. */
Compare *compare_new(void);
void compare_free(Compare *c);
int compare_fd(const Compare *c);
void compare_tick(Tui *t);
int compare_busy(const Tui *t);
void view_compare_draw(Tui *t, int y, int h, int w);
/* Replay (ui/replay_ui.c): start measures the shown plan in the
 * background (msg says what happened; -1 when it cannot start); tick
 * collects a finished replay (1 done, -1 failed, msg filled); set installs
 * a measurement (moved out of *r) of plan (NULL: any plan of its length);
 * shown is the measurement of the plan on screen, or NULL. */
ReplayUi *replay_ui_new(void);
/* Use the remat-cuda program beside this one for `r`; -1 (msg says why)
 * when this build has none. */
int replay_ui_use_cuda(ReplayUi *u, char *msg, size_t n);
/* Use tools/replay_torch.py for `r` (a graph with a recipe); -1 (msg says
 * why) when it cannot be found, and `r` stays with the CPU replay. */
int replay_ui_use_torch(ReplayUi *u, char *msg, size_t n);
void replay_ui_free(ReplayUi *u);
int replay_ui_fd(const ReplayUi *u);
int replay_ui_busy(const ReplayUi *u);
int replay_ui_start(Tui *t, char *msg, size_t n);
int replay_ui_tick(Tui *t, char *msg, size_t n);
void replay_ui_set(ReplayUi *u, struct Replay *r, const struct Plan *plan);
const struct Replay *replay_ui_shown(const Tui *t);
/* Graph view (ui/view_graph.c): tick starts the one layout of the graph
 * when the view is first shown and collects it; key takes the view's own
 * keys (pan, zoom, select) and returns 1 when it did. */
GraphView *graph_view_new(void);
void graph_view_free(GraphView *v);
int graph_view_fd(const GraphView *v);
int graph_view_busy(const GraphView *v);
void graph_view_tick(Tui *t);
int graph_view_key(Tui *t, int ch);
/* Put text clipped to width n at (y, x). */
void tui_put(int y, int x, int n, const char *text);

#endif
