/* export_ui.c — exports off the UI thread (export_ui.h): one task at a
 * time on ui/bg.c, reading only its own copies. */
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
#include "ui/bg.h"

struct ExportUi {
    Bg bg;
    int running;
    /* the task's own copies */
    Graph *g;
    Plan plan;
    int has_plan;
    Overlay ov;
    int *runs;
    unsigned char *alive;
    char path[1024];
    char format[8];
    int rc;
    Err err;
};

/* exports still running at exit; kept reachable for leak checkers */
static ExportUi *abandoned;

static void task_clear(ExportUi *u)
{
    graph_free(u->g);
    u->g = NULL;
    plan_done(&u->plan);
    plan_init(&u->plan);
    overlay_done(&u->ov);
    overlay_init(&u->ov);
    free(u->runs);
    free(u->alive);
    u->runs = NULL;
    u->alive = NULL;
}

static void *export_work(void *arg)
{
    ExportUi *u = arg;
    err_clear(&u->err);
    ExportMarks m = {u->runs, u->alive};
    u->rc = export_graph_marked(u->g, u->has_plan ? &u->plan : NULL, u->ov.n ? &u->ov : NULL,
                                u->has_plan ? &m : NULL, u->format, u->path, &u->err);
    return NULL;
}

ExportUi *export_ui_new(void)
{
    ExportUi *u = xcalloc(1, sizeof *u);
    if (bg_init(&u->bg)) {
        free(u);
        return NULL;
    }
    plan_init(&u->plan);
    overlay_init(&u->ov);
    return u;
}

void export_ui_free(ExportUi *u)
{
    if (!u)
        return;
    if (u->running && !bg_done(&u->bg)) {
        bg_abandon(&u->bg);     /* Graphviz cannot be stopped half-way */
        abandoned = u;
        return;
    }
    bg_free(&u->bg);
    task_clear(u);
    free(u);
}

int export_ui_fd(const ExportUi *u)
{
    return u ? u->bg.fd[0] : -1;
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
    if (!u || u->running) {
        snprintf(msg, n, "export: %s", u ? "one is still running" : "no background thread");
        return -1;
    }
    task_clear(u);
    u->g = graph_clone(s->g);
    u->has_plan = s->have;
    if (s->have) {
        plan_copy(&u->plan, &s->plan);
        overlay_done(&u->ov);
        overlay_copy(&u->ov, &s->ov);
        u->runs = xmallocarray((size_t)s->g->n + 1, sizeof *u->runs);
        u->alive = xmallocarray((size_t)s->g->n + 1, 1);
        memcpy(u->runs, s->facts.runs, (size_t)s->g->n * sizeof *u->runs);
        memcpy(u->alive, s->facts.alive_peak, (size_t)s->g->n);
    }
    snprintf(u->path, sizeof u->path, "%s", path);
    snprintf(u->format, sizeof u->format, "%s", fmt);
    if (bg_start(&u->bg, export_work, u)) {
        snprintf(msg, n, "export: cannot start a thread");
        return -1;
    }
    u->running = 1;
    snprintf(msg, n, "exporting %s (%s) in the background...", path, fmt);
    return 0;
}

int export_ui_tick(ExportUi *u, char *msg, size_t n)
{
    if (!u || !u->running || !bg_reap(&u->bg))
        return 0;
    u->running = 0;
    double secs = clock_now() - u->bg.t0;
    int rc = u->rc;
    if (rc)
        snprintf(msg, n, "export failed: %s", u->err.msg);
    else
        snprintf(msg, n, "wrote %s (%s, %.1fs)", u->path, u->format, secs);
    task_clear(u);
    return rc ? -1 : 1;
}

int export_ui_status(const ExportUi *u, char *buf, size_t n)
{
    if (!u || !u->running)
        return 0;
    const char *base = strrchr(u->path, '/');
    snprintf(buf, n, "exporting %s (%s) %.1fs", base ? base + 1 : u->path, u->format, clock_now() - u->bg.t0);
    return 1;
}
