/* replay_ui.h — the explorer's `r` key: the CPU replay (replay_cpu) of the
 * shown plan as a task of the session's worker, or the remat-cuda program
 * beside this one, or the torch replay; the measured curve kept for the curve view's overlay (also from
 * `--replay MEASURED.json`), drawn while the measured plan is shown. */
#ifndef REMAT_REPLAY_UI_H
#define REMAT_REPLAY_UI_H

#include <stddef.h>

struct Tui;
struct Session;
struct Replay;
struct Plan;
typedef struct ReplayUi ReplayUi;

ReplayUi *replay_ui_new(void);
/* Use the remat-cuda program beside this one for `r`; -1 (msg says why)
 * when this build has none. */
int replay_ui_use_cuda(ReplayUi *u, char *msg, size_t n);
/* Use tools/replay_torch.py for `r` (a graph with a recipe); -1 (msg says
 * why) when it cannot be found, and `r` stays with the CPU replay. */
int replay_ui_use_torch(ReplayUi *u, char *msg, size_t n);
/* Free after the session (whose worker holds a running replay). */
void replay_ui_free(ReplayUi *u);
int replay_ui_busy(const ReplayUi *u);
/* Measure the shown plan in the background (msg says what happened; -1
 * when it cannot start). */
int replay_ui_start(struct Tui *t, char *msg, size_t n);
/* Stop the running replay; 1 when one ran. */
int replay_ui_cancel(ReplayUi *u, struct Session *s);
/* A finished replay's message: 1 done, -1 failed or cancelled; 0 none. */
int replay_ui_take(ReplayUi *u, char *msg, size_t n);
/* Install a measurement (moved out of *r) of plan (NULL: any plan of its
 * length). */
void replay_ui_set(ReplayUi *u, struct Replay *r, const struct Plan *plan);
/* The measurement of the plan on screen, or NULL. */
const struct Replay *replay_ui_shown(const struct Tui *t);

#endif
