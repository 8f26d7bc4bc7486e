/* replay_ui.c — the explorer's `r` key: the CPU replay (replay_cpu) of the
 * shown plan in a background thread, and the measured curve kept for the
 * curve view's overlay (also from `--replay MEASURED.json`). The overlay is
 * drawn only while the shown plan is the one that was measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/explore.h"
#include "src/replay.h"
#include "src/units.h"
#include "src/xalloc.h"
#include "ui/bg.h"
#include "ui/tui.h"

struct ReplayUi {
    Bg bg;
    int running;
    /* the task's input and output (the thread's alone while running) */
    const Graph *g;
    Plan task_plan;
    Replay task_r;
    int task_rc;
    Err task_err;
    /* the last measurement and the plan it measured (plan.T 0: any plan of
     * r.T steps, for a --replay file given without --plan) */
    int have;
    Replay r;
    Plan plan;
};

static void *replay_work(void *arg)
{
    ReplayUi *u = arg;
    err_clear(&u->task_err);
    u->task_rc = replay_cpu(u->g, &u->task_plan, 0, 0.5, &u->task_r, &u->task_err);
    return NULL;
}

ReplayUi *replay_ui_new(void)
{
    ReplayUi *u = xcalloc(1, sizeof *u);
    if (bg_init(&u->bg)) {
        free(u);
        return NULL;
    }
    plan_init(&u->task_plan);
    plan_init(&u->plan);
    replay_init(&u->task_r);
    replay_init(&u->r);
    return u;
}

void replay_ui_free(ReplayUi *u)
{
    if (!u)
        return;
    bg_free(&u->bg);
    plan_done(&u->task_plan);
    plan_done(&u->plan);
    replay_done(&u->task_r);
    replay_done(&u->r);
    free(u);
}

int replay_ui_fd(const ReplayUi *u)
{
    return u ? u->bg.fd[0] : -1;
}

int replay_ui_busy(const ReplayUi *u)
{
    return u && u->running;
}

int replay_ui_start(Tui *t, char *msg, size_t n)
{
    ReplayUi *u = t->rep;
    Session *s = t->s;
    if (!u) {
        snprintf(msg, n, "replay: no background thread");
        return -1;
    }
    if (u->running) {
        snprintf(msg, n, "replay: already running");
        return -1;
    }
    if (!s->have) {
        snprintf(msg, n, "replay: no plan yet");
        return -1;
    }
    u->g = s->g;
    plan_copy(&u->task_plan, &s->plan);
    replay_done(&u->task_r);
    if (bg_start(&u->bg, replay_work, u)) {
        snprintf(msg, n, "replay: cannot start a thread");
        return -1;
    }
    u->running = 1;
    snprintf(msg, n, "replaying %d steps on the CPU...", s->plan.T);
    return 0;
}

void replay_ui_set(ReplayUi *u, Replay *r, const Plan *plan)
{
    replay_done(&u->r);
    u->r = *r;
    replay_init(r);
    plan_done(&u->plan);
    plan_init(&u->plan);
    if (plan)
        plan_copy(&u->plan, plan);
    u->have = 1;
}

int replay_ui_tick(Tui *t, char *msg, size_t n)
{
    ReplayUi *u = t->rep;
    if (!u || !u->running || !bg_reap(&u->bg))
        return 0;
    u->running = 0;
    if (u->task_rc) {
        snprintf(msg, n, "replay failed: %s", u->task_err.msg);
        return -1;
    }
    replay_ui_set(u, &u->task_r, &u->task_plan);
    char m[32], sm[32];
    units_format_bytes(u->r.measured_peak, m, sizeof m);
    units_format_bytes(u->r.simulated_peak, sm, sizeof sm);
    snprintf(msg, n, "replay (%s, scale %.3g, %.2fs): measured peak %s vs simulated %s (%+.1f%%)", u->r.backend,
             u->r.scale, u->r.seconds, m, sm, 100 * measured_diff(u->r.measured_peak, u->r.simulated_peak));
    return 1;
}

const Replay *replay_ui_shown(const Tui *t)
{
    const ReplayUi *u = t->rep;
    const Session *s = t->s;
    if (!u || !u->have || !s->have || u->r.T != s->plan.T)
        return NULL;
    if (u->plan.T && memcmp(u->plan.steps, s->plan.steps, (size_t)u->plan.T * sizeof *u->plan.steps))
        return NULL;
    return &u->r;
}
