/* replay_ui.c — the explorer's `r` key: the CPU replay (replay_cpu) of the
 * shown plan as a task of the session's worker, or remat-cuda, or for a
 * graph with a recipe the torch replay (the model's own operators), and
 * the measured curve kept for the curve view's overlay (also from
 * `--replay MEASURED.json`). The overlay is drawn only while the shown
 * plan is the one that was measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/measured.h"
#include "src/base/fileio.h"
#include "src/graph/graph_io.h"
#include "src/replay/replay.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"
#include "ui/replay_run.h"
#include "ui/replay_ui.h"
#include "ui/tui.h"

/* One replay: its inputs and outputs, the task's alone while it runs. */
typedef struct ReplayTask {
    ReplayUi *u;            /* for done, on the UI thread */
    Plan plan;
    Replay r;
    int rc;
    Err err;
    /* the program to run (none: the CPU replay) and its files */
    char cuda[4096];
    char torch[4200];
    char graph[300], planf[300], out[300], log[300];
} ReplayTask;

struct ReplayUi {
    TaskId running;         /* 0: none */
    int has_result, result_rc;
    char result[700];
    /* the last measurement and the plan it measured (plan.T 0: any plan of
     * r.T steps, for a --replay file given without --plan) */
    int have;
    Replay r;
    Plan plan;
    /* CUDA backend: the remat-cuda program; torch backend:
     * tools/replay_torch.py; either reads files in a private directory */
    char cuda[4096];
    char torch[4200];
    char dir[256];   /* $TMPDIR/remat-tui-XXXXXX, or /tmp/... */
};

/* A replay program failed: its reason is the last line it wrote on its
 * log (or `none` when it wrote nothing). */
static int failed_with(ReplayTask *x, const char *prefix, const char *none)
{
    size_t len;
    Err e;
    err_clear(&e);
    char *msg = file_read_all(x->log, &len, &e);
    char *nl = msg ? strrchr(msg, '\n') : NULL;
    while (nl && nl > msg && nl[1] == '\0') {
        *nl = '\0';
        nl = strrchr(msg, '\n');
    }
    err_set(&x->err, ERR_IO, "%s%.400s", prefix, msg ? (nl ? nl + 1 : msg) : none);
    free(msg);
    return ERR_IO;
}

/* The measured curve a replay program wrote. */
static int read_measured(ReplayTask *x)
{
    return replay_load(&x->r, x->out, &x->err);
}

static void replay_run(void *arg, TaskCtx *cx)
{
    ReplayTask *x = arg;
    err_clear(&x->err);
    replay_done(&x->r);
    replay_init(&x->r);
    if (x->torch[0] || x->cuda[0]) {
        unlink(x->out);
        int st = x->torch[0] ? torch_replay_run(x->torch, x->graph, x->planf, x->out, x->log, cx->p)
                             : cuda_replay_run(x->cuda, x->graph, x->planf, "--scale", "1", x->out, x->log, cx->p);
        if (st < 0)
            x->rc = err_set(&x->err, ERR_CANCELLED, "replay: cancelled");
        else if (st)
            x->rc = failed_with(x, x->torch[0] ? "" : "remat-cuda failed: ",
                                x->torch[0] ? "replay_torch.py failed" : "no message");
        else
            x->rc = read_measured(x);
        return;
    }
    x->rc = replay_cpu(cx->g, &x->plan, 0, 0.5, &x->r, &x->err);
}

static void replay_task_done(void *arg, int cancelled)
{
    ReplayTask *x = arg;
    ReplayUi *u = x->u;
    u->running = 0;
    u->has_result = 1;
    u->result_rc = -1;
    if (cancelled || x->rc == ERR_CANCELLED) {
        snprintf(u->result, sizeof u->result, "replay cancelled");
        return;
    }
    if (x->rc) {
        snprintf(u->result, sizeof u->result, "replay failed: %.600s", x->err.msg);
        return;
    }
    replay_ui_set(u, &x->r, &x->plan);
    char m[32], sm[32];
    units_format_bytes(u->r.measured_peak, m, sizeof m);
    units_format_bytes(u->r.simulated_peak, sm, sizeof sm);
    int k = snprintf(u->result, sizeof u->result,
                     "replay (%s, scale %.3g, %.2fs): measured peak %s vs simulated %s (%+.1f%%)", u->r.backend,
                     u->r.scale, u->r.seconds, m, sm, 100 * measured_diff(u->r.measured_peak, u->r.simulated_peak));
    if (u->r.grad_match >= 0 && k > 0 && (size_t)k < sizeof u->result)
        snprintf(u->result + k, sizeof u->result - (size_t)k, "; gradients %s",
                 u->r.grad_match ? "match" : "DIFFER");
    u->result_rc = 1;
}

static void replay_task_free(void *arg)
{
    ReplayTask *x = arg;
    plan_done(&x->plan);
    replay_done(&x->r);
    free(x);
}

static const TaskOps replay_ops = {"replay", replay_run, replay_task_done, replay_task_free};

ReplayUi *replay_ui_new(void)
{
    ReplayUi *u = xcalloc(1, sizeof *u);
    plan_init(&u->plan);
    replay_init(&u->r);
    return u;
}

static int make_dir(ReplayUi *u, char *msg, size_t n)
{
    if (u->dir[0])
        return 0;
    /* a $TMPDIR too long for dir: /tmp */
    if (file_tmp_template(u->dir, sizeof u->dir, "remat-tui-"))
        snprintf(u->dir, sizeof u->dir, "/tmp/remat-tui-XXXXXX");
    if (!mkdtemp(u->dir)) {
        snprintf(msg, n, "replay: cannot create a temporary directory");
        u->dir[0] = '\0';
        return -1;
    }
    return 0;
}

int replay_ui_use_cuda(ReplayUi *u, char *msg, size_t n)
{
    char self[4096];
    if (cuda_replay_locate(self, sizeof self, msg, n) || make_dir(u, msg, n))
        return -1;
    snprintf(u->cuda, sizeof u->cuda, "%s", self);
    return 0;
}

int replay_ui_use_torch(ReplayUi *u, char *msg, size_t n)
{
    if (torch_replay_locate(u->torch, sizeof u->torch, msg, n) || make_dir(u, msg, n)) {
        u->torch[0] = '\0';
        return -1;
    }
    return 0;
}

static void remove_dir(ReplayUi *u)
{
    if (!u->dir[0])
        return;
    static const char *const names[] = {"graph.json", "plan.json", "measured.json", "log"};
    char p[300];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", u->dir, names[i]);
        unlink(p);
    }
    rmdir(u->dir);
}

void replay_ui_free(ReplayUi *u)
{
    if (!u)
        return;
    /* a replay the worker could not stop is left with it: the files in
     * dir are that replay's, so they stay too */
    if (!u->running)
        remove_dir(u);
    plan_done(&u->plan);
    replay_done(&u->r);
    free(u);
}

int replay_ui_busy(const ReplayUi *u)
{
    return u && u->running;
}

int replay_ui_start(Tui *t, char *msg, size_t n)
{
    ReplayUi *u = t->rep;
    Session *s = t->s;
    if (u->running) {
        snprintf(msg, n, "replay: already running (x cancels it)");
        return -1;
    }
    if (!s->have) {
        snprintf(msg, n, "replay: no plan yet");
        return -1;
    }
    ReplayTask *x = xcalloc(1, sizeof *x);
    x->u = u;
    plan_init(&x->plan);
    plan_copy(&x->plan, &s->plan);
    replay_init(&x->r);
    snprintf(x->cuda, sizeof x->cuda, "%s", u->cuda);
    snprintf(x->torch, sizeof x->torch, "%s", u->torch);
    if (u->cuda[0] || u->torch[0]) {
        /* remat-cuda and replay_torch.py read files: the graph as loaded
         * (after --train; with its recipe) and the plan */
        snprintf(x->graph, sizeof x->graph, "%s/graph.json", u->dir);
        snprintf(x->planf, sizeof x->planf, "%s/plan.json", u->dir);
        snprintf(x->out, sizeof x->out, "%s/measured.json", u->dir);
        snprintf(x->log, sizeof x->log, "%s/log", u->dir);
        Err e;
        err_clear(&e);
        char *gj = graph_to_json(s->g);
        int rc = file_write_all(x->graph, gj, strlen(gj), &e);
        free(gj);
        if (!rc) {
            char *pj = plan_to_json(&s->plan, s->g, NULL);
            rc = file_write_all(x->planf, pj, strlen(pj), &e);
            free(pj);
        }
        if (rc) {
            snprintf(msg, n, "replay: %s", e.msg);
            replay_task_free(x);
            return -1;
        }
    }
    u->running = session_task(s, &replay_ops, x);
    snprintf(msg, n, "replaying %d steps %s... (x cancels)", s->plan.T,
             u->torch[0] ? "with the model's own operators (torch)"
             : u->cuda[0] ? "on the GPU (remat-cuda)" : "on the CPU");
    return 0;
}

int replay_ui_cancel(ReplayUi *u, Session *s)
{
    if (!u->running)
        return 0;
    session_task_cancel(s, u->running);
    return 1;
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

int replay_ui_take(ReplayUi *u, char *msg, size_t n)
{
    if (!u || !u->has_result)
        return 0;
    u->has_result = 0;
    snprintf(msg, n, "%s", u->result);
    return u->result_rc;
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
