/* replay_ui.c — the explorer's `r` key: the CPU replay (replay_cpu) of the
 * shown plan in a background thread, or remat-cuda, or for a graph with a
 * recipe the torch replay (the model's own operators), and the measured
 * curve kept for the curve view's overlay (also from `--replay
 * MEASURED.json`). The overlay is drawn only while the shown plan is the
 * one that was measured. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "render/explore.h"
#include "src/base/fileio.h"
#include "src/graph/graph_io.h"
#include "src/replay/replay.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"
#include "ui/bg.h"
#include "ui/replay_ui.h"
#include "ui/torch_replay.h"
#include "ui/tui.h"

struct ReplayUi {
    Bg bg;
    int running;
    /* the task's input and output (the thread's alone while running); its
     * own copy of the graph, so a replay still running at quit can be left
     * to the exiting process */
    Graph *g;
    Plan task_plan;
    Replay task_r;
    int task_rc;
    Err task_err;
    /* the last measurement and the plan it measured (plan.T 0: any plan of
     * r.T steps, for a --replay file given without --plan) */
    int have;
    Replay r;
    Plan plan;
    /* CUDA backend: the remat-cuda program and a private temp directory;
     * torch backend: tools/replay_torch.py, same directory */
    char cuda[4096];
    char torch[4200];
    char dir[64];
};

/* The files of one replay task in u->dir: the graph and plan given to the
 * replay program, its measured curve and its messages (kept in a file so
 * curses keeps the terminal). */
typedef struct TaskFiles {
    char graph[128], plan[128], out[128], err[128];
} TaskFiles;

static void task_files(const ReplayUi *u, TaskFiles *f)
{
    snprintf(f->graph, sizeof f->graph, "%s/graph.json", u->dir);
    snprintf(f->plan, sizeof f->plan, "%s/plan.json", u->dir);
    snprintf(f->out, sizeof f->out, "%s/measured.json", u->dir);
    snprintf(f->err, sizeof f->err, "%s/stderr", u->dir);
}

/* A replay program failed: its reason is the last line it wrote on its
 * error file ep (or `none` when it wrote nothing). */
static int failed_with(ReplayUi *u, const char *ep, const char *prefix, const char *none)
{
    size_t len;
    Err e;
    err_clear(&e);
    char *msg = file_read_all(ep, &len, &e);
    char *nl = msg ? strrchr(msg, '\n') : NULL;
    while (nl && nl > msg && nl[1] == '\0') {
        *nl = '\0';
        nl = strrchr(msg, '\n');
    }
    err_set(&u->task_err, ERR_IO, "%s%.400s", prefix, msg ? (nl ? nl + 1 : msg) : none);
    free(msg);
    return ERR_IO;
}

/* The measured curve a replay program wrote to op. */
static int read_measured(ReplayUi *u, const char *op)
{
    size_t len;
    char *text = file_read_all(op, &len, &u->task_err);
    if (!text)
        return u->task_err.code;
    int rc = replay_from_json(&u->task_r, text, len, op, &u->task_err);
    free(text);
    return rc;
}

/* Run remat-cuda on the graph and plan written to u->dir; its output and
 * messages stay in files there so curses keeps the terminal. */
static int run_cuda(ReplayUi *u)
{
    TaskFiles f;
    task_files(u, &f);
    unlink(f.out);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(f.err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execl(u->cuda, u->cuda, f.graph, f.plan, "--scale", "1", f.out, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return err_set(&u->task_err, ERR_IO, "cannot run %s", u->cuda);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return failed_with(u, f.err, "remat-cuda failed: ", "no message");
    return read_measured(u, f.out);
}

/* Run tools/replay_torch.py on the files in u->dir, its messages kept in
 * a file there; its last line is the failure's reason. */
static int run_torch(ReplayUi *u)
{
    TaskFiles f;
    task_files(u, &f);
    unlink(f.out);
    if (torch_replay_run(u->torch, f.graph, f.plan, f.out, f.err))
        return failed_with(u, f.err, "", "replay_torch.py failed");
    return read_measured(u, f.out);
}

static void *replay_work(void *arg)
{
    ReplayUi *u = arg;
    err_clear(&u->task_err);
    if (u->torch[0])
        u->task_rc = run_torch(u);
    else if (u->cuda[0])
        u->task_rc = run_cuda(u);
    else
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

int replay_ui_use_cuda(ReplayUi *u, char *msg, size_t n)
{
    char self[4096];
    if (cuda_replay_locate(self, sizeof self, msg, n))
        return -1;
    snprintf(u->dir, sizeof u->dir, "/tmp/remat-tui-XXXXXX");
    if (!mkdtemp(u->dir)) {
        snprintf(msg, n, "replay: cannot create a temporary directory");
        u->dir[0] = '\0';
        return -1;
    }
    snprintf(u->cuda, sizeof u->cuda, "%s", self);
    return 0;
}

int replay_ui_use_torch(ReplayUi *u, char *msg, size_t n)
{
    if (torch_replay_locate(u->torch, sizeof u->torch, msg, n)) {
        u->torch[0] = '\0';
        return -1;
    }
    if (!u->dir[0]) {
        snprintf(u->dir, sizeof u->dir, "/tmp/remat-tui-XXXXXX");
        if (!mkdtemp(u->dir)) {
            snprintf(msg, n, "replay: cannot create a temporary directory");
            u->dir[0] = '\0';
            u->torch[0] = '\0';
            return -1;
        }
    }
    return 0;
}

static void remove_dir(ReplayUi *u)
{
    if (!u->dir[0])
        return;
    static const char *const names[] = {"graph.json", "plan.json", "measured.json", "stderr"};
    char p[128];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", u->dir, names[i]);
        unlink(p);
    }
    rmdir(u->dir);
}

/* replays still running at exit; kept reachable for leak checkers */
static ReplayUi *abandoned;

void replay_ui_free(ReplayUi *u)
{
    if (!u)
        return;
    if (u->running && !bg_done(&u->bg)) {
        bg_abandon(&u->bg);     /* replay_cpu has no cancel flag */
        abandoned = u;
        return;
    }
    bg_free(&u->bg);
    graph_free(u->g);
    remove_dir(u);
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
    graph_free(u->g);
    u->g = graph_clone(s->g);
    plan_copy(&u->task_plan, &s->plan);
    replay_done(&u->task_r);
    if (u->cuda[0] || u->torch[0]) {
        /* remat-cuda and replay_torch.py read files: the graph as loaded
         * (after --train; with its recipe) and the plan */
        TaskFiles f;
        task_files(u, &f);
        Err e;
        err_clear(&e);
        char *gj = graph_to_json(s->g);
        int rc = file_write_all(f.graph, gj, strlen(gj), &e);
        free(gj);
        if (!rc) {
            char *pj = plan_to_json(&s->plan, s->g, NULL);
            rc = file_write_all(f.plan, pj, strlen(pj), &e);
            free(pj);
        }
        if (rc) {
            snprintf(msg, n, "replay: %s", e.msg);
            return -1;
        }
    }
    if (bg_start(&u->bg, replay_work, u)) {
        snprintf(msg, n, "replay: cannot start a thread");
        return -1;
    }
    u->running = 1;
    snprintf(msg, n, "replaying %d steps %s...", s->plan.T,
             u->torch[0] ? "with the model's own operators (torch)"
             : u->cuda[0] ? "on the GPU (remat-cuda)" : "on the CPU");
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
    int k = snprintf(msg, n, "replay (%s, scale %.3g, %.2fs): measured peak %s vs simulated %s (%+.1f%%)",
                     u->r.backend, u->r.scale, u->r.seconds, m, sm,
                     100 * measured_diff(u->r.measured_peak, u->r.simulated_peak));
    if (u->r.grad_match >= 0 && k > 0 && (size_t)k < n)
        snprintf(msg + k, n - (size_t)k, "; gradients %s", u->r.grad_match ? "match" : "DIFFER");
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
