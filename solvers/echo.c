/* echo.c — Echo (Zheng et al. 2020): footprint-aware selective recomputation.
 *
 * The forward part is cut at compute-heavy operators (conv, matmul, linear,
 * gemm, bmm, dense by op name, or by cost with heavy_ratio), which are never
 * recomputed. Each connected group of the remaining cheap forward operators
 * is a candidate. For a candidate S the *global* footprint effect is
 *   released = bytes of S's values that the backward pass reads (stashed now)
 *   stashed  = bytes of S's inputs from outside S that the backward pass does
 *              not already keep (a value kept for another operator is shared
 *              storage and costs nothing more).
 * The runtime estimate is non-conservative: only values the backward pass
 * actually reads are recomputed (an operator whose gradient needs only its
 * inputs, like a fully connected layer, is not), with their cheap ancestors
 * inside S. Candidates with released > stashed are tried largest gain first;
 * each is kept only if the simulated peak strictly falls, so the result is
 * never worse than noremat. With a budget, it stops once the budget is met.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/base/xalloc.h"

static const SolverParam params[] = {
    OPT_P_TEXT("heavy", "conv,matmul,linear,gemm,bmm,addmm,dense,mm",
               "op-name substrings of compute-heavy operators (never recomputed)"),
    OPT_P_NUM("heavy_ratio", "0", 0, 1e12, NULL,
              "also treat a forward node as heavy if cost >= ratio x mean forward cost (0: off)"),
    OPT_P_END,
};

typedef struct {
    int *group;         /* per node: candidate index, -1 for heavy/non-forward */
    int ngroups;
    int *order;         /* candidate indices, best estimated gain first */
    int64_t *gain;      /* estimated bytes saved per candidate */
    unsigned char *chosen;  /* candidates kept by the last solve */
} Echo;

static int op_is_heavy(const char *op, const char *list)
{
    char low[256];
    size_t i;
    for (i = 0; op[i] && i < sizeof low - 1; i++)
        low[i] = (char)tolower((unsigned char)op[i]);
    low[i] = '\0';
    const char *p = list;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (n) {
            char pat[64];
            snprintf(pat, sizeof pat, "%.*s", (int)n, p);
            /* "mm" must be a whole word or suffix (bmm, addmm), not "comm" */
            char *hit = strstr(low, pat);
            if (hit && (n > 2 || hit + n == low + strlen(low)))
                return 1;
        }
        p = c ? c + 1 : p + n;
    }
    return 0;
}

static int echo_prepare(Solver *s, Err *e)
{
    const Graph *g = s->g;
    double ratio;
    if (solver_opt_double(s, "heavy_ratio", &ratio, e))
        return e->code;
    const char *heavy = solver_opt_str(s, "heavy");
    int nb = 0;
    for (int v = 0; v < g->n; v++)
        nb += g->nodes[v].phase == PHASE_BWD;
    if (!nb)
        return err_set(e, ERR_UNSUPPORTED,
                       "echo: no backward nodes: it recomputes forward values for the backward pass "
                       "(load a training graph, or use --train)");
    double mean = 0;
    int nf = 0;
    for (int v = 0; v < g->n; v++)
        if (g->nodes[v].phase == PHASE_FWD) {
            mean += g->nodes[v].cost;
            nf++;
        }
    mean = nf ? mean / nf : 0;
    Echo *st = s->state;
    st->group = xmallocarray((size_t)g->n, sizeof *st->group);
    unsigned char *cheap = xcalloc((size_t)g->n, 1);
    for (int v = 0; v < g->n; v++) {
        st->group[v] = -1;
        const Node *nd = &g->nodes[v];
        cheap[v] = nd->phase == PHASE_FWD && !op_is_heavy(nd->op, heavy) &&
                   !(ratio > 0 && nd->cost >= ratio * mean);
    }
    /* connected groups of cheap forward nodes: iterative flood fill */
    int *stack = xmallocarray((size_t)g->n, sizeof *stack);
    for (int v = 0; v < g->n; v++) {
        if (!cheap[v] || st->group[v] >= 0)
            continue;
        int gi = st->ngroups++, sp = 0;
        st->group[v] = gi;
        stack[sp++] = v;
        while (sp) {
            int x = stack[--sp];
            for (int pass = 0; pass < 2; pass++) {
                const int *off = pass ? g->out_off : g->in_off, *idx = pass ? g->out_idx : g->in_idx;
                for (int k = off[x]; k < off[x + 1]; k++) {
                    int y = idx[k];
                    if (cheap[y] && st->group[y] < 0) {
                        st->group[y] = gi;
                        stack[sp++] = y;
                    }
                }
            }
        }
    }
    /* stashed now: forward values some backward node reads */
    unsigned char *read_bwd = xcalloc((size_t)g->n, 1);
    for (int v = 0; v < g->n; v++)
        if (g->nodes[v].phase == PHASE_BWD || g->nodes[v].phase == PHASE_LOSS)
            for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
                read_bwd[g->in_idx[k]] = 1;
    st->gain = xcalloc((size_t)st->ngroups + 1, sizeof *st->gain);
    int *stamp = xmallocarray((size_t)g->n, sizeof *stamp);
    for (int v = 0; v < g->n; v++)
        stamp[v] = -1;
    for (int v = 0; v < g->n; v++) {
        int gi = st->group[v];
        if (gi < 0)
            continue;
        if (read_bwd[v] && !g->is_output[v])
            st->gain[gi] += g->nodes[v].size; /* released */
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int u = g->in_idx[k];
            /* inputs from outside the group not already kept are newly stashed,
             * counted once per group however many members read them */
            if (st->group[u] != gi && !read_bwd[u] && g->nodes[u].phase != PHASE_INPUT &&
                stamp[u] != gi) {
                stamp[u] = gi;
                st->gain[gi] -= g->nodes[u].size;
            }
        }
    }
    st->order = xmallocarray((size_t)st->ngroups + 1, sizeof *st->order);
    for (int i = 0; i < st->ngroups; i++)
        st->order[i] = i;
    /* best gain first (insertion sort keeps it simple; groups are few) */
    for (int i = 1; i < st->ngroups; i++) {
        int x = st->order[i], j = i - 1;
        while (j >= 0 && st->gain[st->order[j]] < st->gain[x]) {
            st->order[j + 1] = st->order[j];
            j--;
        }
        st->order[j + 1] = x;
    }
    st->chosen = xcalloc((size_t)st->ngroups + 1, 1);
    free(stamp);
    free(read_bwd);
    free(stack);
    free(cheap);
    return ERR_OK;
}

/* Schedule: the forward part and loss in the graph's order, then the
 * backward part; before each backward step, recompute (in topological
 * order) the chosen-group values it reads that have not been recomputed
 * yet, with their chosen-group ancestors. */
static void build(const Graph *g, const Echo *st, const unsigned char *chosen, Plan *out)
{
    plan_reset(out);
    unsigned char *redone = xcalloc((size_t)g->n, 1), *need = xcalloc((size_t)g->n, 1);
    int *stack = xmallocarray((size_t)g->n, sizeof *stack);
    int *pos = xmallocarray((size_t)g->n, sizeof *pos);
    for (int i = 0; i < g->n; i++)
        pos[g->topo[i]] = i;
    for (int i = 0; i < g->n; i++) {
        int v = g->topo[i];
        if (g->nodes[v].phase == PHASE_FWD || g->nodes[v].phase == PHASE_LOSS)
            plan_push(out, v);
    }
    int *list = xmallocarray((size_t)g->n, sizeof *list);
    for (int i = 0; i < g->n; i++) {
        int b = g->topo[i];
        if (g->nodes[b].phase != PHASE_BWD)
            continue;
        int nl = 0, sp = 0;
        for (int k = g->in_off[b]; k < g->in_off[b + 1]; k++) {
            int u = g->in_idx[k];
            if (st->group[u] >= 0 && chosen[st->group[u]] && !redone[u] && !need[u]) {
                need[u] = 1;
                stack[sp++] = u;
            }
        }
        while (sp) {
            int x = stack[--sp];
            list[nl++] = x;
            for (int k = g->in_off[x]; k < g->in_off[x + 1]; k++) {
                int u = g->in_idx[k];
                if (st->group[u] == st->group[x] && !redone[u] && !need[u]) {
                    need[u] = 1;
                    stack[sp++] = u;
                }
            }
        }
        /* topological order of the few nodes to recompute */
        for (int a = 1; a < nl; a++) {
            int x = list[a], j = a - 1;
            while (j >= 0 && pos[list[j]] > pos[x]) {
                list[j + 1] = list[j];
                j--;
            }
            list[j + 1] = x;
        }
        for (int a = 0; a < nl; a++) {
            plan_push(out, list[a]);
            redone[list[a]] = 1;
            need[list[a]] = 0;
        }
        plan_push(out, b);
    }
    free(list);
    free(pos);
    free(stack);
    free(need);
    free(redone);
}

static int64_t peak_of(const Graph *g, const Plan *p)
{
    Sim s;
    Err e;
    if (sim_run(g, p->steps, p->T, &s, &e))
        return INT64_MAX;
    int64_t pk = s.peak;
    sim_done(&s);
    return pk;
}

static int echo_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    const Graph *g = s->g;
    Echo *st = s->state;
    unsigned char *chosen = xcalloc((size_t)st->ngroups + 1, 1);
    Plan trial;
    plan_init(&trial);
    build(g, st, chosen, out);
    int64_t best = peak_of(g, out);
    for (int i = 0; i < st->ngroups; i++) {
        if (budget != PLAN_NO_BUDGET && best <= budget)
            break;
        if (progress_cancelled(p)) {
            free(chosen);
            plan_done(&trial);
            return err_set(e, ERR_CANCELLED, "echo: cancelled");
        }
        progress_set(p, (double)i / st->ngroups);
        int c = st->order[i];
        if (st->gain[c] <= 0)
            break; /* estimated not to help: recomputing would stash more than it frees */
        chosen[c] = 1;
        build(g, st, chosen, &trial);
        int64_t pk = peak_of(g, &trial);
        if (pk < best) {
            best = pk;
            plan_swap_steps(out, &trial);
        } else {
            chosen[c] = 0;
        }
    }
    memcpy(st->chosen, chosen, (size_t)st->ngroups);
    free(chosen);
    plan_done(&trial);
    return ERR_OK;
}

static void echo_describe(const Solver *s, Overlay *out)
{
    const Echo *st = s->state;
    const Graph *g = s->g;
    char label[128];
    int kept = 0;
    for (int c = 0; c < st->ngroups; c++)
        kept += st->chosen[c];
    overlay_set_titlef(out, "echo: %d of %d cheap subgraphs recomputed", kept, st->ngroups);
    for (int c = 0; c < st->ngroups; c++) {
        snprintf(label, sizeof label, "subgraph %d%s: est. %+lld bytes", c,
                 st->chosen[c] ? " (recomputed)" : "", (long long)-st->gain[c]);
        int gi = overlay_add(out, OVERLAY_SEGMENT, label, -1, 0);
        for (int v = 0; v < g->n; v++)
            if (st->group[v] == c)
                overlay_add_node(out, gi, v);
    }
}

static void echo_release(Solver *s)
{
    Echo *st = s->state;
    free(st->group);
    free(st->order);
    free(st->gain);
    free(st->chosen);
}

const SolverClass solver_echo = {
    .name = "echo",
    .title = "Echo: recompute cheap subgraphs between heavy ops where the global footprint falls",
    .params = params,
    .state_size = sizeof(Echo),
    .prepare = echo_prepare,
    .solve = echo_solve,
    .describe = echo_describe,
    .release = echo_release,
};
