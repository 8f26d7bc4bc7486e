/* dtr.c — the greedy walk with DTR's eviction rule (Kirisame et al. 2021,
 * Dynamic Tensor Rematerialization), the next read known: walk the
 * graph's order and, while a step would go over the budget, drop the held
 * value whose rerun (with the inputs not held that it would need again,
 * and theirs) costs least per byte freed and per step until its next
 * read; a dropped value runs again just before its next reader
 * (greedy_ranked, greedy.c).
 *
 * Why beside greedy: GreedyRemat drops the largest value, Belady's rule the
 * one read latest; on a training graph both drop a network's stem first
 * (it is read last in the backward pass, and its values are large), and
 * its chain then runs again for block after block. Weighing the rerun's
 * own chain keeps cheap-to-rebuild values going first (one solve at 25 %
 * of the baseline, FLOP costs, docs/solvers/dtr.md: resnet50 greedy over
 * the budget at 42 % of the baseline, dtr +14.8 %; llama_7b greedy +26.6
 * %, dtr +16.7 %), in a few milliseconds where the LP that gets such
 * plans takes seconds.
 *
 * Forward values go first. Dropping a backward value too can rescue a
 * step the forward values cannot (efficientnet_b0 at 25 %, unit costs:
 * 27.8 % of the baseline with forward values only, within the budget with
 * both) or make reruns that drop each other (resnet50, unit costs: 25.6
 * % of the baseline with forward values only, +176 % within the budget
 * with both), so walks=both makes the second walk where the first does
 * not fit and keeps the better plan. */
#include <stdlib.h>
#include <string.h>

#include "solvers/greedy.h"
#include "src/base/xalloc.h"
#include "src/plan/cands.h"
#include "src/plan/plan.h"
#include "src/plan/solver.h"

static const SolverParam params[] = {
    OPT_P_CHOICE("walks", "both", "both|forward",
                 "forward: drop forward values only; both: also a walk that drops backward values after them, "
                 "the better plan kept"),
    OPT_P_END,
};

static int dtr_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    const Graph *g = s->g;
    int walks = strcmp(solver_opt_str(s, "walks"), "both") == 0 ? 2 : 1, rc = ERR_OK;
    unsigned char *rank = xcalloc((size_t)g->n + 1, 1);
    int backward = 0;
    for (int v = 0; v < g->n; v++)
        backward |= g->nodes[v].phase == PHASE_LOSS || g->nodes[v].phase == PHASE_BWD;
    if (!backward)
        walks = 1;
    Plan try, best;
    plan_init(&try);
    plan_init(&best);
    for (int w = 0; w < walks; w++) {
        for (int v = 0; v < g->n; v++)
            rank[v] = g->nodes[v].phase == PHASE_FWD ? 2 : w && g->nodes[v].phase != PHASE_INPUT;
        int r = greedy_ranked(g, budget, rank, GREEDY_CHEAPEST_RERUN, &try, p, e);
        if (r == ERR_LIMIT && w > 0)
            continue;       /* reruns that kept dropping each other: the first walk stands */
        if (r == ERR_OK)
            r = plan_evaluate_with(&try, g, 0, 0, NULL, e);
        if (r != ERR_OK) {
            rc = r;
            break;
        }
        if (best.T == 0 || cands_better(budget, try.peak, try.cost, best.peak, best.cost))
            plan_copy(&best, &try);
        if (budget == PLAN_NO_BUDGET || best.peak <= budget)
            break;      /* nothing dropped, or the forward values were enough */
    }
    /* the steps alone: out's other fields are solver_plan's */
    if (rc == ERR_OK)
        plan_set_steps(out, best.steps, best.T);
    plan_done(&try);
    plan_done(&best);
    free(rank);
    return rc;
}

const SolverClass solver_dtr = {
    .name = "dtr",
    .title = "DTR's rule in the greedy walk: drop the value whose rerun (with its missing inputs) costs least per byte and per step until it is read",
    .params = params,
    .solve = dtr_solve,
};
