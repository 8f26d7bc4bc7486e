/* export_ui.c — exports as tasks of the session's worker (export_ui.h):
 * one at a time, each reading the session's graph and its own copies of
 * the plan, the structure and the marks. */
#include "ui/export_ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "render/export.h"
#include "src/base/clock.h"
#include "src/base/fileio.h"
#include "src/plan/overlay_json.h"
#include "src/base/xalloc.h"

typedef struct ExportTask {
    ExportUi *u;            /* for done, on the UI thread */
    Plan plan;
    int has_plan;
    Overlay ov;
    int *runs;
    unsigned char *alive;
    char path[1024];
    char format[8];
    double t0;
    int ran;
    int rc;
    Err err;
} ExportTask;

struct ExportUi {
    TaskId running;         /* 0: none */
    char path[1024], format[8];
    double t0;
    int has_result, result_rc;
    char result[1200];
};

static void export_run(void *arg, TaskCtx *cx)
{
    ExportTask *x = arg;
    err_clear(&x->err);
    x->ran = 1;
    ExportMarks m = {x->runs, x->alive};
    /* the worker's progress: its done feeds the status line's percentage,
     * its cancel (x) stops the export, the target left untouched */
    ExportOpts o = {.progress = cx->p};
    x->rc = export_graph_opts(cx->g, x->has_plan ? &x->plan : NULL, x->ov.n ? &x->ov : NULL,
                              x->has_plan ? &m : NULL, x->format, x->path, &o, &x->err);
}

static void export_done(void *arg, int cancelled)
{
    ExportTask *x = arg;
    ExportUi *u = x->u;
    u->running = 0;
    u->has_result = 1;
    /* what the export did decides (a cancel that came after the file was
     * written leaves it written); a task cancelled before it ran did nothing */
    if (x->rc == ERR_CANCELLED || (cancelled && !x->ran)) {
        u->result_rc = -1;
        snprintf(u->result, sizeof u->result, "export of %.900s cancelled; the file was not written", x->path);
    } else if (x->rc) {
        u->result_rc = -1;
        snprintf(u->result, sizeof u->result, "export failed: %.1000s", x->err.msg);
    } else {
        u->result_rc = 1;
        snprintf(u->result, sizeof u->result, "wrote %.1000s (%s, %.1fs)", x->path, x->format, clock_now() - x->t0);
    }
}

static void export_free(void *arg)
{
    ExportTask *x = arg;
    plan_done(&x->plan);
    overlay_done(&x->ov);
    free(x->runs);
    free(x->alive);
    free(x);
}

static const TaskOps export_ops = {"export", export_run, export_done, export_free};

ExportUi *export_ui_new(void)
{
    return xcalloc(1, sizeof(ExportUi));
}

void export_ui_free(ExportUi *u)
{
    free(u);
}

int export_ui_busy(const ExportUi *u)
{
    return u && u->running;
}

int export_ui_start(ExportUi *u, Session *s, const char *path, char *msg, size_t n)
{
    const char *fmt = export_format_of(path);
    if (!fmt) {
        snprintf(msg, n, "export: '%s': name a .dot, .gv, .svg, .png or .json file", path);
        return -1;
    }
    if (!strcmp(fmt, "json")) {
        if (!s->have) {
            snprintf(msg, n, "export: no plan yet");
            return -1;
        }
        cJSON *extra = NULL;
        if (s->ov.n || s->ov.title) {   /* the structure drawn in the views goes along */
            extra = cJSON_CreateObject();
            cJSON_AddItemToObject(extra, "structure", overlay_to_json(&s->ov, s->g));
        }
        char *js = plan_to_json(&s->plan, s->g, extra);
        Err e;
        err_clear(&e);
        int rc = file_write_all(path, js, strlen(js), &e);
        free(js);
        if (rc)
            snprintf(msg, n, "export failed: %s", e.msg);
        else
            snprintf(msg, n, "wrote %s", path);
        return rc ? -1 : 1;
    }
    if (u->running) {
        snprintf(msg, n, "export: one is still running (x cancels it)");
        return -1;
    }
    ExportTask *x = xcalloc(1, sizeof *x);
    x->u = u;
    plan_init(&x->plan);
    overlay_init(&x->ov);
    x->has_plan = s->have;
    if (s->have) {
        plan_copy(&x->plan, &s->plan);
        overlay_copy(&x->ov, &s->ov);
        x->runs = xmallocarray((size_t)s->g->n + 1, sizeof *x->runs);
        x->alive = xmallocarray((size_t)s->g->n + 1, 1);
        memcpy(x->runs, s->facts.runs, (size_t)s->g->n * sizeof *x->runs);
        memcpy(x->alive, s->facts.alive_peak, (size_t)s->g->n);
    }
    snprintf(x->path, sizeof x->path, "%s", path);
    snprintf(x->format, sizeof x->format, "%s", fmt);
    x->t0 = clock_now();
    snprintf(u->path, sizeof u->path, "%s", path);
    snprintf(u->format, sizeof u->format, "%s", fmt);
    u->t0 = x->t0;
    u->running = session_task(s, &export_ops, x);
    snprintf(msg, n, "exporting %s (%s) in the background...", path, fmt);
    return 0;
}

int export_ui_cancel(ExportUi *u, Session *s)
{
    if (!u->running)
        return 0;
    session_task_cancel(s, u->running);
    return 1;
}

int export_ui_take(ExportUi *u, char *msg, size_t n)
{
    if (!u || !u->has_result)
        return 0;
    u->has_result = 0;
    snprintf(msg, n, "%s", u->result);
    return u->result_rc;
}

int export_ui_status(const ExportUi *u, Session *s, char *buf, size_t n)
{
    if (!u || !u->running)
        return 0;
    SessionStatus st;
    session_status(s, &st);
    const char *base = strrchr(u->path, '/');
    if (st.io_progress > 0 && !strcmp(st.io_what, "export"))
        snprintf(buf, n, "exporting %s (%s) %.0f%% %.1fs, x cancels", base ? base + 1 : u->path, u->format,
                 100 * st.io_progress, clock_now() - u->t0);
    else
        snprintf(buf, n, "exporting %s (%s) %.1fs, x cancels", base ? base + 1 : u->path, u->format,
                 clock_now() - u->t0);
    return 1;
}
