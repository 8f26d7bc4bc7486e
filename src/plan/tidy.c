/* tidy.c — drop the reruns a schedule does not need.
 *
 * An exact solver stopped on its time limit returns CBC's incumbent, and
 * a rounded relaxation returns whatever its threshold kept; both often run
 * a node again where the copy already made could serve until its next
 * read (CBC's incumbents on fcn_8_vgg at 70 % ran pools and dropouts
 * twice in a row). Heuristics do it too, by construction: TWRemat's
 * recursion and Chen's segments rerun nodes whose copy could stay.
 *
 * Dropping the rerun at step t of a node whose previous run is at p is
 * always valid: the spec holds p's copy until the node runs again, so it
 * now serves every read up to the next run. What changes in memory is
 * exact and local: p's copy is now also held over the gap between its
 * last read and t, where neither copy was, so the gap's steps grow by the
 * node's size; step t itself goes (with its workspace), and the values
 * only step t read may be freed earlier, which only lowers memory. So a
 * drop is taken when every step of the gap stays within the limit, and
 * the profile is updated by that growth alone (an upper bound; a later
 * pass on a fresh simulation takes drops an earlier one had to refuse).
 * Later steps are tried first: their gaps do not hold earlier drops.
 * That is O(T + E + the gaps' lengths) a pass.
 *
 * Where the bound refuses, the freed inputs may still pay for the growth
 * (TWRemat reruns whole chains, each holding its inputs): the schedule
 * without the step is then simulated, within a work allowance of
 * simulated steps and edges, so a 2K-node graph's tidy stays a few tens
 * of milliseconds. Measured at 70 % on resnet50: the bound alone took
 * twremat's plan from +245 % to +92 %; with the simulations, to +10.8 %
 * (bench_tidy).
 */
#include "src/plan/tidy.h"

#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"

/* Simulated steps and edges one tidy may spend on exact checks. */
#define TIDY_WORK 20000000

/* The schedule without the gone steps and without step t: within the
 * limit? Charges the simulation to *work. */
static int fits_without(const Graph *g, const int *steps, int T, const unsigned char *gone, int t,
                        int64_t limit, int *buf, int64_t *work)
{
    int k = 0;
    for (int u = 0; u < T; u++)
        if (!gone[u] && u != t)
            buf[k++] = steps[u];
    *work += k + g->n_edges;
    Sim s;
    Err e;
    err_clear(&e);
    int ok = sim_run(g, buf, k, &s, &e) == ERR_OK && s.peak <= limit;
    sim_done(&s);
    return ok;
}

/* One pass over a simulated schedule; marks the dropped steps in gone[]. */
static int tidy_pass(const Graph *g, const int *steps, int T, Sim *s, int64_t limit,
                     const unsigned char *rule, unsigned char *gone, int64_t *work)
{
    int *buf = xmallocarray((size_t)T, sizeof *buf);
    int *last = xmallocarray((size_t)g->n, sizeof *last);
    int *prev = xmallocarray((size_t)T, sizeof *prev);
    for (int v = 0; v < g->n; v++)
        last[v] = -1;
    for (int t = 0; t < T; t++) {
        prev[t] = last[steps[t]];
        last[steps[t]] = t;
    }
    int64_t *mem = s->mem;
    int *held = s->held_until;
    int got = 0;
    for (int t = T - 1; t > 0; t--) {
        int p = prev[t];
        if (p < 0 || (rule && rule[steps[t]] == NODE_FORCE))
            continue;
        int64_t sz = g->nodes[steps[t]].size;
        int ok = 1;
        for (int u = held[p] + 1; u < t && ok; u++)
            ok = gone[u] || mem[u] + sz <= limit;
        if (!ok && (*work >= TIDY_WORK || !fits_without(g, steps, T, gone, t, limit, buf, work)))
            continue;
        for (int u = held[p] + 1; u < t; u++)
            mem[u] += sz;
        held[p] = held[t];
        gone[t] = 1;
        got++;
    }
    free(last);
    free(prev);
    free(buf);
    return got;
}

int plan_tidy(const Graph *g, int *steps, int *T, int64_t limit, const unsigned char *rule)
{
    int n = *T, dropped = 0;
    int64_t work = 0;
    for (int pass = 0; pass < 16 && n > 1; pass++) {
        Sim s;
        Err e;
        err_clear(&e);
        if (sim_run(g, steps, n, &s, &e) != ERR_OK || s.peak > limit) {
            sim_done(&s);
            break;
        }
        unsigned char *gone = xcalloc((size_t)n, 1);
        int got = tidy_pass(g, steps, n, &s, limit, rule, gone, &work);
        sim_done(&s);
        int k = 0;
        for (int t = 0; t < n; t++)
            if (!gone[t])
                steps[k++] = steps[t];
        free(gone);
        n = k;
        dropped += got;
        if (!got)
            break;
    }
    *T = n;
    return dropped;
}
