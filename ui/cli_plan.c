/* cli_plan.c — the commands that run a plan: simulate (re-check it:
 * validity, peak, cost, what is alive at a step, what it recomputes),
 * replay (with real buffers on the CPU, on a GPU through remat-cuda, or
 * with the model's own operators through tools/replay_torch.py) and
 * calibrate (a replay's measured workspaces written into the graph). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/xalloc.h"

#include "render/curve.h"
#include "src/base/fileio.h"
#include "src/base/units.h"
#include "src/graph/graph_io.h"
#include "src/replay/calibrate.h"
#include "src/replay/replay.h"
#include "src/plan/sim.h"
#include "ui/cli_args.h"
#include "ui/replay_run.h"

int cmd_simulate(Args *a)
{
    Plan p;
    int status;
    Graph *g = cli_load_graph_plan(a, NULL, &p, &status);
    if (!g)
        return status;
    Err e;
    err_clear(&e);
    Sim s;
    memset(&s, 0, sizeof s);
    if (plan_load(&p, g, a->pos[1], &e)) {
        status = cli_fail(&e);
        goto out;
    }
    if (sim_run(g, p.steps, p.T, &s, &e)) {
        err_prefix(&e, a->pos[1]);
        status = cli_fail(&e);
        goto out;
    }
    int64_t bp;
    double bc;
    sim_baseline(g, &bp, &bc);
    char pk[64];
    cli_fmt_b(s.peak, pk, sizeof pk);
    printf("valid     yes, %d steps, %d recomputation%s\n", s.T, s.recomputations, s.recomputations == 1 ? "" : "s");
    printf("peak      %s at step %d (%s)\n", pk, s.peak_step + 1,
           s.peak_step >= 0 ? cli_safe(g->nodes[p.steps[s.peak_step]].id) : "-");
    char c1[48], c2[48];
    cli_fmt_cost(s.cost, c1, sizeof c1);
    cli_fmt_cost(bc, c2, sizeof c2);
    printf("cost      %s (baseline %s, %+.1f%%)\n", c1, c2, bc > 0 ? 100 * (s.cost / bc - 1) : 0);
    if (p.budget != PLAN_NO_BUDGET) {
        char hb[32];
        units_format_bytes(p.budget, hb, sizeof hb);
        printf("budget    %lld: %s (%s)\n", (long long)p.budget, s.peak <= p.budget ? "met" : "EXCEEDED", hb);
    }
    if (a->at) {
        int t = atoi(a->at);
        if (t < 1 || t > s.T) {
            status = cli_usage_err("simulate", "--at STEP is out of range");
            goto out;
        }
        cli_print_live(g, p.steps, &s, t - 1, a->top);
    }
    if (a->recomputed) {
        p.baseline_cost = bc;
        cli_print_recomputed(g, &p);
    }
    if (a->curve) {
        char *c = curve_ascii(s.mem, s.T, a->width, a->height, p.budget != PLAN_NO_BUDGET ? p.budget : -1);
        fputs(c, stdout);
        free(c);
    }
    if (a->csv) {
        printf("step,node,memory\n");
        for (int t = 0; t < s.T; t++)
            printf("%d,%s,%lld\n", t + 1, cli_safe(g->nodes[p.steps[t]].id), (long long)s.mem[t]);
    }
    Err ce;
    err_clear(&ce);
    if (plan_check(&p, g, &ce)) {
        fprintf(stderr, "remat: %s: %s\n", a->pos[1], ce.msg);
        status = EXIT_FAIL;
    } else if (p.budget != PLAN_NO_BUDGET && s.peak > p.budget) {
        status = EXIT_BUDGET;
    }
out:
    sim_done(&s);
    plan_done(&p);
    graph_free(g);
    return status;
}

static void print_replay(const Replay *r)
{
    char a[32], b[32], c[32];
    units_format_bytes(r->simulated_peak, a, sizeof a);
    units_format_bytes(r->measured_peak, b, sizeof b);
    units_format_bytes(r->rss_peak, c, sizeof c);
    double sp = (double)r->simulated_peak;
    printf("backend   %s (%s), scale %.6g\n", r->backend, r->device, r->scale);
    printf("simulated peak %lld (%s)\n", (long long)r->simulated_peak, a);
    printf("measured  peak %lld (%s), %+.2f%% vs simulated (allocator live bytes)\n",
           (long long)r->measured_peak, b, sp > 0 ? 100 * (r->measured_peak / sp - 1) : 0);
    if (r->outside > 0) {
        char o[32];
        units_format_bytes(r->outside, o, sizeof o);
        printf("outside   %lld (%s) allocated before the run, no value of the graph (the matrix "
               "libraries' workspaces): not counted\n", (long long)r->outside, o);
    }
    if (r->rss_peak > 0)
        printf("resident  peak %lld (%s), %+.2f%% vs simulated\n", (long long)r->rss_peak, c,
               sp > 0 ? 100 * (r->rss_peak / sp - 1) : 0);
    if (r->correlation == r->correlation)
        printf("step time vs node cost: correlation r = %.3f over %d steps, %.3f s\n",
               r->correlation, r->T, r->seconds);
    if (r->grad_match >= 0)
        printf("gradients %s plain autograd's (max abs diff %.3g)\n",
               r->grad_match ? "match" : "DIFFER from", r->grad_max_diff);
}

/* --backend torch: the plan run with the model's own operators by
 * tools/replay_torch.py, on a graph whose exporter recorded a recipe. The
 * graph and plan are checked here first, so bad input reads as it does for
 * the other backends, and the tool's simulated peak is checked against
 * this simulator's. */
static int replay_torch(const Args *a)
{
    Plan p;
    int status;
    Graph *g = cli_load_graph_plan(a, a->pos[1], &p, &status);
    if (!g)
        return status;
    Err e;
    err_clear(&e);
    char tool[4200], msg[4400], tmp[4096];
    if (file_tmp_template(tmp, sizeof tmp, "remat-replay-")) {
        fprintf(stderr, "remat: replay: TMPDIR is too long\n");
        graph_free(g);
        plan_done(&p);
        return EXIT_FAIL;
    }
    const char *outp = a->out;
    if (!g->recipe || a->train || a->scale || a->fit) {
        fprintf(stderr, "remat: replay: %s\n",
                !g->recipe ? "--backend torch needs a graph with a recipe (a joint graph written by "
                             "tools/export_torch.py)"
                           : "--backend torch runs the recipe's model as it is: no --train, --scale "
                             "or --fit");
        status = EXIT_FAIL;
        goto out;
    }
    if (torch_replay_locate(tool, sizeof tool, msg, sizeof msg)) {
        fprintf(stderr, "remat: %s\n", msg);
        status = EXIT_FAIL;
        goto out;
    }
    if (!outp) {
        int fd = mkstemp(tmp);
        if (fd < 0) {
            status = EXIT_FAIL;
            goto out;
        }
        close(fd);
        outp = tmp;
    }
    if (torch_replay_run(tool, a->pos[0], a->pos[1], outp, "-", NULL)) {
        status = EXIT_FAIL;
        goto out;
    }
    Replay r;
    if (replay_load(&r, outp, &e)) {
        status = cli_fail(&e);
    } else {
        print_replay(&r);
        if (r.simulated_peak != p.peak) {
            fprintf(stderr, "remat: replay: the torch replay simulated a peak of %lld, the simulator "
                            "%lld\n", (long long)r.simulated_peak, (long long)p.peak);
            status = EXIT_FAIL;
        } else if (r.grad_match == 0) {
            fprintf(stderr, "remat: replay: the schedule's gradients differ from plain autograd's "
                            "(max abs diff %.3g)\n", r.grad_max_diff);
            status = EXIT_FAIL;
        }
        replay_done(&r);
    }
out:
    if (!a->out && outp == tmp)
        unlink(tmp);
    plan_done(&p);
    graph_free(g);
    return status;
}

/* The CUDA backend is a separate program beside this binary, built only
 * where nvcc exists, so that this one runs everywhere. */
static int run_cuda(const Args *a, const char *outpath)
{
    char self[4096], msg[200];
    if (cuda_replay_locate(self, sizeof self, msg, sizeof msg)) {
        fprintf(stderr, "remat: %s\n", msg);
        return EXIT_FAIL;
    }
    int st = cuda_replay_run(self, a->pos[0], a->pos[1], a->fit ? "--fit" : "--scale",
                             a->fit ? a->fit : a->scale ? a->scale : "1", outpath, "-", NULL);
    return st < 0 ? EXIT_FAIL : st;
}

int cmd_replay(Args *a)
{
    const char *backend = a->backend ? a->backend : "cpu";
    if (strcmp(backend, "cpu") && strcmp(backend, "cuda") && strcmp(backend, "torch"))
        return cli_usage_err("replay", "--backend must be cpu, cuda or torch");
    if (!strcmp(backend, "torch"))
        return replay_torch(a);
    if (a->scale && a->fit)
        return cli_usage_err("replay", "give --scale or --fit, not both");
    Err e;
    err_clear(&e);
    int status = EXIT_OK;
    if (!strcmp(backend, "cuda")) {
        char tmp[4096];
        if (file_tmp_template(tmp, sizeof tmp, "remat-replay-")) {
            fprintf(stderr, "remat: replay: TMPDIR is too long\n");
            return EXIT_FAIL;
        }
        const char *outp = a->out;
        if (!outp) {
            int fd = mkstemp(tmp);
            if (fd < 0)
                return EXIT_FAIL;
            close(fd);
            outp = tmp;
        }
        status = run_cuda(a, outp);
        if (status == EXIT_OK) {
            Replay r;
            if (replay_load(&r, outp, &e))
                status = cli_fail(&e);
            else {
                print_replay(&r);
                replay_done(&r);
            }
        }
        if (!a->out)
            unlink(tmp);
        return status;
    }
    double scale = 0;
    if (a->scale) {
        char *end;
        scale = strtod(a->scale, &end);
        if (*end || !(scale > 0) || scale > 1e12)
            return cli_usage_err("replay", "--scale needs a positive number");
    }
    if (a->fit) {
        /* CPU: PCT of the machine's available memory */
        char *end;
        double pct = strtod(a->fit, &end);
        if ((*end && strcmp(end, "%")) || !(pct > 0) || pct > 90)
            return cli_usage_err("replay", "--fit needs a percentage in (0, 90]");
        long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
        scale = -pct / 100.0 * (double)pages * (double)psz; /* resolved below, once the peak is known */
    }
    Plan p;
    Graph *g = cli_load_graph_plan(a, a->pos[1], &p, &status);
    if (!g)
        return status;
    Replay r;
    replay_init(&r);
    if (scale < 0)
        scale = p.peak > 0 ? -scale / (double)p.peak : 1;
    if (replay_cpu(g, &p, scale, 0.5, &r, &e)) {
        status = cli_fail(&e);
        goto out;
    }
    print_replay(&r);
    if (a->out) {
        char *json = replay_to_json(&r, g, &p);
        Err we;
        if (file_write_all(a->out, json, strlen(json), &we))
            status = cli_fail(&we);
        free(json);
    }
out:
    replay_done(&r);
    plan_done(&p);
    graph_free(g);
    return status;
}


/* calibrate GRAPH PLAN MEASURED: the workspaces a replay of PLAN measured
 * beyond the simulator (src/replay/calibrate.h) added to GRAPH's nodes,
 * the graph written to -o (standard output by default), and on stderr
 * what was given and the plan's peak on the calibrated graph beside the
 * measured one. */
int cmd_calibrate(Args *a)
{
    Plan p;
    int status;
    Graph *g = cli_load_graph_plan(a, a->pos[1], &p, &status);
    if (!g)
        return status;
    Err e;
    err_clear(&e);
    Replay r;
    int rc_load = replay_load(&r, a->pos[2], &e);
    int64_t *extra = xcalloc((size_t)g->n, sizeof *extra);
    int64_t floor_b = 0;
    Graph *c = NULL;
    int given = -1;
    if (rc_load) {
        status = cli_fail(&e);
        goto out;
    }
    if ((given = calibrate_workspaces(g, &p, &r, extra, &floor_b, &e)) < 0) {
        status = cli_fail_in(a->pos[2], &e);
        goto out;
    }
    if (!(c = graph_with_extra_workspace(g, extra, &e))) {
        status = cli_fail_in(a->pos[0], &e);
        goto out;
    }
    Sim s;
    if (sim_run(c, p.steps, p.T, &s, &e)) {
        status = cli_fail(&e);
        goto out;
    }
    int big = 0;
    for (int v = 1; v < g->n; v++)
        if (extra[v] > extra[big])
            big = v;
    char fb[32], bb[32], pb[32], mb[32];
    units_format_bytes(floor_b, fb, sizeof fb);
    units_format_bytes(extra[big], bb, sizeof bb);
    units_format_bytes(s.peak, pb, sizeof pb);
    units_format_bytes(r.measured_peak, mb, sizeof mb);
    if (given)
        fprintf(stderr, "remat: calibrate: %d node%s given workspace (largest %s, '%s'), above the %s every "
                        "step measured over its simulation (the median: the allocator's rounding)\n",
                given, given == 1 ? "" : "s", bb, g->nodes[big].id, fb);
    else
        fprintf(stderr, "remat: calibrate: no step measured more than the %s every step did (the median): "
                        "no workspace given\n", fb);
    fprintf(stderr, "remat: calibrate: the plan's peak on the calibrated graph %lld (%s), measured %lld (%s)\n",
            (long long)s.peak, pb, (long long)r.measured_peak, mb);
    sim_done(&s);
    char *json = graph_to_json(c);
    if (file_write_all(a->out ? a->out : "-", json, strlen(json), &e))
        status = cli_fail(&e);
    free(json);
out:
    graph_free(c);
    free(extra);
    replay_done(&r);
    plan_done(&p);
    graph_free(g);
    return status;
}
