/* replay_ui.h — the explorer's `r` key: the CPU replay (replay_cpu) of the
 * shown plan in a background thread, or the remat-cuda program beside this
 * one; the measured curve kept for the curve view's overlay (also from
 * `--replay MEASURED.json`), drawn while the measured plan is shown. */
#ifndef REMAT_REPLAY_UI_H
#define REMAT_REPLAY_UI_H

#include <stddef.h>

struct Tui;
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
void replay_ui_free(ReplayUi *u);
int replay_ui_fd(const ReplayUi *u);
int replay_ui_busy(const ReplayUi *u);
/* Measure the shown plan in the background (msg says what happened; -1
 * when it cannot start). */
int replay_ui_start(struct Tui *t, char *msg, size_t n);
/* Collect a finished replay: 1 done, -1 failed, msg filled; 0 nothing. */
int replay_ui_tick(struct Tui *t, char *msg, size_t n);
/* Install a measurement (moved out of *r) of plan (NULL: any plan of its
 * length). */
void replay_ui_set(ReplayUi *u, struct Replay *r, const struct Plan *plan);
/* The measurement of the plan on screen, or NULL. */
const struct Replay *replay_ui_shown(const struct Tui *t);

#endif
