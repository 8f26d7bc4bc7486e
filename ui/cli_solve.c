/* cli_solve.c — the commands that ask the solve service
 * (src/session/service.h) for plans: solve (one budget), sweep (budgets
 * over the range), fit (the largest batch in a memory), and list-solvers.
 * Each answer is the service's final one, so `sweep` at a budget gives the
 * plan `solve` gives there, and the explorer's final plan is the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "src/base/fileio.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"
#include "src/plan/bound.h"
#include "src/plan/overlay_json.h"
#include "src/plan/sim.h"
#include "src/session/service.h"
#include "src/session/fit.h"
#include "src/session/sweep.h"
#include "ui/cli_args.h"

/* --structure: the groups a solver's describe() returns, one line each
 * (label, kind, size, the first node ids), indented by level. */
static void print_structure(const Overlay *ov, const Graph *g, const SolverClass *cls)
{
    if (!ov->n && !ov->title) {
        fprintf(stderr, "%s shows no structure\n", cls->name);
        return;
    }
    fprintf(stderr, "structure: %s", ov->title ? ov->title : cls->name);
    if (ov->width)
        fprintf(stderr, " (width %d)", ov->width);
    if (ov->n)
        fprintf(stderr, ", %d group%s", ov->n, plural_s(ov->n));
    fputc('\n', stderr);
    for (int i = 0; i < ov->n; i++) {
        const OverlayGroup *gr = &ov->groups[i];
        int ind = 2 + 2 * (gr->level < 20 ? gr->level : 20);
        fprintf(stderr, "%*s%s [%s, %d nodes", ind, "", cli_safe(gr->label), overlay_kind_name(gr->kind),
                gr->n);
        if (gr->parent >= 0)
            fprintf(stderr, ", parent %d", gr->parent);
        fputs("]:", stderr);
        for (int k = 0; k < gr->n && k < 8; k++)
            fprintf(stderr, " %s", cli_safe(g->nodes[gr->nodes[k]].id));
        fputs(gr->n > 8 ? " ...\n" : "\n", stderr);
    }
}

/* --bound: the lower bounds (src/plan/bound.h) for the budget over the
 * graph's order, over that order and the plan's own, and over every
 * order, with the plan's gap to each. */
static void print_bound(const Graph *g, int64_t budget, const Plan *p)
{
    double gb = -1, lb = -1, ab = -1;
    Err e;
    err_clear(&e);
    char c[48];
    if (bound_any(g, budget, BOUND_SECONDS, NULL, &ab, &e) == ERR_OK) {
        cli_fmt_cost(ab, c, sizeof c);
        fprintf(stderr, "bound: no schedule in any order costs less than %s; this plan is %+.2f%% above it\n", c,
                ab > 0 ? 100 * (p->cost / ab - 1) : 0.0);
    } else {
        fprintf(stderr, "bound: none over every order (%s)\n", e.msg);
    }
    err_clear(&e);
    if (bound_cover(g, NULL, 0, budget, BOUND_SECONDS, NULL, &gb, &e) == ERR_OK) {
        cli_fmt_cost(gb, c, sizeof c);
        fprintf(stderr, "bound: no plan in the graph's order costs less than %s; this plan is %+.2f%% above it%s\n",
                c, gb > 0 ? 100 * (p->cost / gb - 1) : 0.0, p->cost < gb ? " (below: it leaves that order)" : "");
    } else {
        fprintf(stderr, "bound: none on the graph's order (%s)\n", e.msg);
    }
    if (bound_same_order(g, p->steps, p->T))
        return;
    err_clear(&e);
    int rc = bound_cover(g, p->steps, p->T, budget, BOUND_SECONDS, NULL, &lb, &e);
    if (rc == ERR_OK) {
        cli_fmt_cost(lb, c, sizeof c);
        fprintf(stderr, "bound: over the graph's order and this plan's, %s; this plan is %+.2f%% above it\n", c,
                lb > 0 ? 100 * (p->cost / lb - 1) : 0.0);
    } else {
        fprintf(stderr, "bound: none over this plan's order (%s)\n", e.msg);
    }
}

/* The solver named by --solver (the portfolio by default: the best plan
 * the project can find), or NULL after a usage message. */
static const SolverClass *solver_arg(const Args *a, const char *cmd)
{
    const char *sname = a->solver ? a->solver : "auto";
    const SolverClass *cls = solver_find(sname);
    if (!cls) {
        char m[300];
        snprintf(m, sizeof m, "unknown solver '%s'; 'remat list-solvers' lists them", sname);
        cli_usage_err(cmd, m);
    }
    return cls;
}

int cmd_solve(Args *a)
{
    const SolverClass *cls = solver_arg(a, "solve");
    if (!cls)
        return EXIT_USAGE;
    int64_t budget, lo = -1;
    int rc;
    Graph *g = cli_load_with_budget(a, "solve", &budget, &rc);
    if (!g)
        return rc;
    /* --budget min: the tightest budget the solver reaches, at its lowest
     * cost there (service_tightest) */
    int tightest = budget == PLAN_TIGHTEST;
    Answer ans;
    if (tightest) {
        Service *en = service_new(g);
        rc = service_tightest(en, cls, &a->opts, NULL, &ans, &lo);
        service_free(en);
        budget = ans.budget;
    } else {
        rc = service_solve(g, cls, &a->opts, budget, NULL, &ans);
    }
    const Plan *p = &ans.plan;
    int status = EXIT_OK;
    if (rc == ERR_OK || (rc == ERR_OVER_BUDGET && ans.has_plan)) {
        /* the plan's own structure travels in the plan (spec: optional
         * extra fields) and, with --structure, as text for people */
        if (a->structure && rc == ERR_OK)
            print_structure(&ans.ov, g, cls);
        Err we;
        err_clear(&we);
        /* the plan goes where -o says ("-": standard output); without -o
         * only the summary is printed */
        if (rc == ERR_OK && a->out) {
            cJSON *extra = NULL;
            if (ans.ov.n || ans.ov.title) {
                extra = cJSON_CreateObject();
                cJSON_AddItemToObject(extra, "structure", overlay_to_json(&ans.ov, g));
            }
            char *json = plan_to_json(p, g, extra);
            if (file_write_all(a->out, json, strlen(json), &we))
                status = cli_fail(&we);
            free(json);
        }
        char pk[32], bp[32], c[48];
        units_format_bytes(p->peak, pk, sizeof pk);
        units_format_bytes(p->baseline_peak, bp, sizeof bp);
        cli_fmt_cost(p->cost, c, sizeof c);
        char who[128];
        if (p->origin)
            snprintf(who, sizeof who, "%s (%s's plan)", cls->name, p->origin);
        else
            snprintf(who, sizeof who, "%s", cls->name);
        int nrec = plan_recomputed_nodes(p, g);
        /* a failed write has said so: no summary line after it */
        if (rc != ERR_OK) {
            status = cli_fail_in(a->pos[0], &ans.err);
        } else if (status == EXIT_OK) {
            fprintf(stderr, "%s: peak %lld (%s, baseline %s), cost %s (%+.1f%%), %d steps, %d recomputed node%s, %.3f s\n",
                    who, (long long)p->peak, pk, bp, c, 100 * plan_overhead(p), p->T, nrec, nrec == 1 ? "" : "s",
                    ans.secs);
            if (tightest) {
                char say[256];
                service_tightest_say(budget, lo, p->baseline_peak, say, sizeof say);
                fprintf(stderr, "%s: %s\n", cls->name, say);
            }
            double ab;
            int64_t at = budget == PLAN_NO_BUDGET ? p->baseline_peak : budget;
            if ((budget == PLAN_NO_BUDGET || p->peak <= budget) && p->cost <= graph_needed_cost(g) * (1 + 1e-9)) {
                /* whichever solver made it: nothing runs twice */
                fprintf(stderr, "%s: optimal: no schedule costs less (each node an output needs runs once)\n",
                        cls->name);
            } else if (p->bound >= 0 && p->optimal && bound_any(g, at, 0, NULL, &ab, NULL) == ERR_OK &&
                ab >= p->bound * (1 - 1e-12)) {
                /* its bound is the one over every order (cached by the solve) */
                fprintf(stderr, "%s: optimal: no schedule in any order costs less (proven by the bound over every order)\n",
                        cls->name);
            } else if (p->bound >= 0 && p->optimal) {
                fprintf(stderr, "%s: optimal%s%s (proven by the solver)\n", cls->name,
                        cls->optimal_among ? " " : "", cls->optimal_among ? cls->optimal_among : "");
            } else if (p->bound >= 0) {
                char b[48];
                cli_fmt_cost(p->bound, b, sizeof b);
                fprintf(stderr, "%s: best found, gap %.3g%% to the solver's bound %s\n", cls->name,
                        p->cost > 0 ? 100 * (p->cost - p->bound) / p->cost : 0.0, b);
            }
            if (a->bound)
                print_bound(g, budget == PLAN_NO_BUDGET ? p->baseline_peak : budget, p);
            if (a->recomputed)
                cli_print_recomputed(g, p);
        }
    } else {
        status = cli_fail_in(a->pos[0], &ans.err);
    }
    answer_done(&ans);
    graph_free(g);
    return status;
}

int cmd_sweep(Args *a)
{
    const SolverClass *cls = solver_arg(a, "sweep");
    if (!cls)
        return EXIT_USAGE;
    Err e;
    err_clear(&e);
    Graph *g = cli_load_graph(a, a->pos[0], &e);
    if (!g)
        return cli_fail(&e);
    int64_t bp, lo = graph_min_peak(g, NULL);
    double bc;
    sim_baseline(g, &bp, &bc);
    int64_t *budgets = xmallocarray((size_t)a->points, sizeof *budgets);
    SweepPoint *pts = xmallocarray((size_t)a->points, sizeof *pts);
    /* one point: the baseline peak alone */
    sweep_budgets(a->points == 1 ? bp : lo, bp, a->points, budgets);
    int rc = sweep_run(g, cls, &a->opts, budgets, a->points, pts, NULL, NULL, &e);
    if (rc) {
        free(budgets);
        free(pts);
        graph_free(g);
        return cli_fail_in(a->pos[0], &e);
    }
    if (a->csv)
        printf("budget,peak,cost,overhead_pct,steps,status\n");
    else
        printf("%-24s %-24s %16s %9s %7s  %s\n", "budget", "peak", "cost", "overhead", "steps", "status");
    for (int i = 0; i < a->points; i++) {
        const SweepPoint *pt = &pts[i];
        const char *status = pt->has_plan ? (pt->rc == ERR_OK ? "ok" : "over")
                             : pt->rc == ERR_OVER_BUDGET ? "infeasible" : err_label(pt->rc);
        if (a->csv && pt->has_plan)
            printf("%lld,%lld,%.17g,%.2f,%d,%s\n", (long long)pt->budget, (long long)pt->plan.peak, pt->plan.cost,
                   100 * plan_overhead(&pt->plan), pt->plan.T, status);
        else if (a->csv)
            printf("%lld,,,,,%s\n", (long long)pt->budget, status);
        else {
            char b1[48], b2[48] = "-";
            cli_fmt_h(pt->budget, b1, sizeof b1);
            if (pt->has_plan)
                cli_fmt_h(pt->plan.peak, b2, sizeof b2);
            char c[48];
            if (pt->has_plan)
                cli_fmt_cost(pt->plan.cost, c, sizeof c);
            if (pt->has_plan)
                printf("%-24s %-24s %16s %+8.2f%% %7d  %s\n", b1, b2, c, 100 * plan_overhead(&pt->plan),
                       pt->plan.T, status);
            else
                printf("%-24s %-24s %16s %9s %7s  %s\n", b1, b2, "-", "-", "-", status);
        }
    }
    sweep_points_done(pts, a->points);
    free(pts);
    free(budgets);
    graph_free(g);
    return EXIT_OK;
}

/* Text for a Markdown table cell: a '|' would end the cell. */
static void md_cell(const char *t)
{
    for (; *t; t++) {
        if (*t == '|')
            putchar('\\');
        putchar(*t);
    }
}

/* One solver's options as the Markdown table docs/solvers/ carries
 * (scripts/gen_solver_docs.sh puts it there; a test checks it is current). */
static void list_markdown(const SolverClass *c)
{
    printf("<!-- options: %s (generated by `remat list-solvers --markdown`; do not edit) -->\n", c->name);
    printf("| option | default | accepts | meaning |\n|---|---|---|---|\n");
    for (const SolverParam *p = c->params; p && p->name; p++) {
        char kind[160];
        solver_param_kind(p, kind, sizeof kind);
        printf("| `%s` | `%s` | ", p->name, p->def[0] ? p->def : "(none)");
        md_cell(kind);
        fputs(" | ", stdout);
        md_cell(p->help);
        fputs(" |\n", stdout);
    }
    if (c->caps & SOLVER_CONSTRAINTS)
        printf("| `pin`, `force` | (none) | node ids, comma-separated | never recompute these / recompute these |\n");
    printf("<!-- /options -->\n");
}

int cmd_list(Args *a)
{
    for (int i = 0; i < solver_count(); i++) {
        const SolverClass *c = solver_at(i);
        if (a->npos == 1 && strcmp(a->pos[0], c->name))
            continue;
        if (a->markdown) {
            list_markdown(c);
            continue;
        }
        printf("%-16s %s\n", c->name, c->title);
        for (const SolverParam *p = c->params; p && p->name; p++) {
            char kind[160];
            solver_param_kind(p, kind, sizeof kind);
            printf("%-16s   %s=%s  [%s]  %s\n", "", p->name, p->def, kind, p->help);
        }
    }
    if (a->npos == 1 && !solver_find(a->pos[0])) {
        char m[300];
        snprintf(m, sizeof m, "unknown solver '%s'", a->pos[0]);
        return cli_usage_err("list-solvers", m);
    }
    return EXIT_OK;
}

int cmd_fit(Args *a)
{
    if (!a->memory)
        return cli_usage_err("fit", "--memory BYTES is required (e.g. 80GiB)");
    Err e;
    err_clear(&e);
    int64_t mem;
    if (units_parse_bytes(a->memory, -1, &mem, &e))
        return cli_usage_err("fit", e.msg);
    double maxo = -1;
    if (a->max_overhead) {
        char *end;
        maxo = strtod(a->max_overhead, &end);
        if ((*end && strcmp(end, "%")) || maxo < 0)
            return cli_usage_err("fit", "--max-overhead needs a percentage such as 30%");
        maxo /= 100;
    }
    const SolverClass *cls = solver_arg(a, "fit");
    if (!cls)
        return EXIT_USAGE;
    Graph *g = cli_load_graph(a, a->pos[0], &e);
    if (!g)
        return cli_fail(&e);
    FitResult r;
    int rc = fit_batch(g, cls, &a->opts, mem, maxo, 1 << 16, &r, NULL, &e);
    int status = EXIT_OK;
    if (rc) {
        status = cli_fail(&e);
        goto out;
    }
    char m1[64], m2[64], m3[64], m4[64];
    cli_fmt_h(mem, m1, sizeof m1);
    printf("memory    %s; batch multiplier scales every value but parameters (op \"param\")\n", m1);
    if (r.b_plain) {
        cli_fmt_h(r.peak_plain, m2, sizeof m2);
        printf("noremat   largest multiplier %d (peak %s, overhead +0.0%%)\n", r.b_plain, m2);
    } else {
        cli_fmt_h(r.peak_one, m4, sizeof m4);
        printf("noremat   does not fit even at multiplier 1 (peak %s)\n", m4);
    }
    if (r.b_remat) {
        cli_fmt_h(r.peak_remat, m3, sizeof m3);
        printf("%-9s largest multiplier %d (peak %s, overhead %+.1f%%)%s\n", cls->name, r.b_remat, m3,
               100 * r.overhead_remat, r.b_remat > r.b_plain ? "" : " (no gain over noremat)");
        if (a->out) {
            Graph *gb = graph_scaled(g, r.b_remat, NULL); /* fit_batch planned on it */
            char *json = plan_to_json(&r.plan, gb, NULL);
            Err we;
            if (file_write_all(a->out, json, strlen(json), &we))
                status = cli_fail(&we);
            free(json);
            graph_free(gb);
        }
    } else {
        printf("%-9s does not fit even at multiplier 1%s\n", cls->name,
               maxo >= 0 ? " within the overhead limit" : "");
        status = EXIT_BUDGET;
    }
out:
    fit_result_done(&r);
    graph_free(g);
    return status;
}

