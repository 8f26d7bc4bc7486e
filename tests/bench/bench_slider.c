/* bench_slider.c — what a user tuning a budget with the slider sees. The
 * explorer's session (no terminal, the same code) on real-model samples
 * and joint graphs with its default solver (auto), a scripted slider
 * session of steps and jumps between 90 % and 50 % of the baseline peak;
 * for each move, the cost increase of the plan shown 0.1 s, 1 s and 5 s
 * after the move and at the end (final: what `remat solve` gives), the
 * time to final, and beside it `remat solve`'s own plan at that budget (a
 * fresh solve through the same service: auto's search is timed, so two
 * solves can differ). "-": no plan within the budget shown yet; a move
 * back to a budget already solved is served from the cache at once. The
 * joint ATen graphs of densenet121 and resnet50 (batch 8) are exported
 * here first with tools/export_torch.py (fake tensors, seconds) into the
 * build folder when Debian's python3 with torch is there. Figures, not
 * pass/fail. */
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/session/service.h"
#include "src/session/session.h"
#include "tests/bench/load.h"

/* Longest a move may take before the row says so (auto ends by its time
 * limit, at most 30 s plus the exact member's 5.5 s). */
#define MOVE_MAX_S 120.0

/* The shown plan's cost increase when it answers the want within the
 * budget, as text ("-" otherwise). */
static void shown(const Session *s, char *buf, size_t n)
{
    if (s->have && s->have_budget == s->budget && s->sim.peak <= s->budget)
        snprintf(buf, n, "%+.2f %%%s", 100 * plan_overhead(&s->plan), s->shown == SHOWN_QUICK ? " q" : "");
    else
        snprintf(buf, n, "-");
}

static void move(Session *s, const Graph *g, int pct, int64_t bp)
{
    int64_t budget = bp * pct / 100;
    if (budget < s->min_peak) {
        printf("| %s | %d %% | below the smallest possible peak (%.0f %%): the slider stops there |  |  |  |  |  |\n",
               g->name, pct, 100.0 * (double)s->min_peak / (double)bp);
        return;
    }
    session_set_budget(s, budget);
    double t0 = clock_now();
    session_request(s);
    static const double at[3] = {0.1, 1.0, 5.0};
    char txt[3][32];
    int k = 0;
    double fin = -1;
    for (;;) {
        double now = clock_now() - t0;
        while (k < 3 && now >= at[k])
            shown(s, txt[k++], sizeof txt[0]);
        SessionStatus st;
        session_status(s, &st);
        if (!st.solving && s->shown == SHOWN_FINAL && s->have_budget == budget) {
            fin = now;
            break;
        }
        if (!st.solving && s->have_budget != budget)
            break;      /* refused: no plan */
        if (now > MOVE_MAX_S)
            break;
        struct pollfd pf = {.fd = session_fd(s), .events = POLLIN};
        poll(&pf, 1, 5);
        session_poll(s);
    }
    char last[32];
    shown(s, last, sizeof last);
    while (k < 3)
        snprintf(txt[k++], sizeof txt[0], "%s", last);
    Answer a;
    double c0 = clock_now();
    service_solve(g, s->cls, NULL, budget, NULL, &a);
    double cs = clock_now() - c0;
    char cl[48];
    if (a.has_plan && a.plan.peak <= budget)
        snprintf(cl, sizeof cl, "%+.2f %% (%.1f s)", 100 * plan_overhead(&a.plan), cs);
    else
        snprintf(cl, sizeof cl, "no plan (%.1f s)", cs);
    answer_done(&a);
    char tf[32];
    if (fin < 0)
        snprintf(tf, sizeof tf, "not final");
    else if (s->from_cache)
        snprintf(tf, sizeof tf, "cached, %.3f s", fin);
    else
        snprintf(tf, sizeof tf, "%.1f s", fin);
    printf("| %s | %d %% | %s | %s | %s | %s | %s | %s |\n", g->name, pct, txt[0], txt[1], txt[2], last, tf, cl);
}

/* The joint graph of a torchvision model at batch 8 under dir (made now
 * when missing); its path in buf, or NULL when it cannot be made. */
static const char *joint(const char *dir, const char *model, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s-joint-b8.json", dir, model);
    if (access(buf, R_OK) == 0)
        return buf;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && /usr/bin/python3 tools/export_torch.py %s --batch 8 -o %s >/dev/null 2>&1",
             dir, model, buf);
    return system(cmd) == 0 && access(buf, R_OK) == 0 ? buf : NULL;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "build/bench-graphs";
    char d121[512], r50[512];
    const char *files[] = {
        "samples/models/resnet50.json", "samples/models/densenet121.json", "samples/models/unet.json",
        "samples/models/joint/resnet18.json", "samples/models/joint/tiny_gpt.json",
        joint(dir, "densenet121", d121, sizeof d121), joint(dir, "resnet50", r50, sizeof r50),
    };
    /* steps and jumps; the last returns to a budget already solved */
    static const int script[] = {90, 80, 70, 50, 60, 90};
    printf("| graph | budget | 0.1 s | 1 s | 5 s | end | to final | remat solve |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        if (!files[f]) {
            printf("| (a joint graph) | not exported: no Debian python3 with torch |  |  |  |  |  |  |\n");
            continue;
        }
        int64_t bp;
        double bc;
        Graph *g = bench_load(files[f], files[f], &bp, &bc);
        if (!g)
            continue;
        Graph *mine = graph_clone(g);
        Err e;
        err_clear(&e);
        Session *s = session_new(mine, NULL, NULL, &e);
        if (!s) {
            printf("| %s | session: %s |\n", files[f], e.msg);
            graph_free(g);
            continue;
        }
        session_request(s);     /* the explorer opens at the baseline */
        for (int i = 0; i < 6000; i++) {
            SessionStatus st;
            session_status(s, &st);
            if (!st.solving)
                break;
            struct pollfd pf = {.fd = session_fd(s), .events = POLLIN};
            poll(&pf, 1, 20);
            session_poll(s);
        }
        for (size_t m = 0; m < sizeof script / sizeof *script; m++)
            move(s, g, script[m], bp);
        session_free(s);
        graph_free(g);
    }
    printf("\n(q: the quick answer, shown while the full solve refines it.)\n");
    return 0;
}
