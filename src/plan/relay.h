/* relay.h — the plans of one solve that runs on more than one thread,
 * passed on to the caller's listener one at a time.
 *
 * auto solves the cascade LP on a thread of its own while FastSA searches
 * (the LP's child process takes one core, the search the other), and then
 * a second FastSA search on that thread, so two threads find plans at
 * once. The caller's listener (Progress.offer) is
 * called by one search at a time and expects each plan cheaper than the
 * last: the relay serializes the calls, simulates each plan and passes on
 * only those within the budget and cheaper than the last it passed on.
 * A helper's plans are also held for the search thread, which takes the
 * latest (relay_take) and goes on from it.
 */
#ifndef REMAT_RELAY_H
#define REMAT_RELAY_H

#include <pthread.h>
#include <stdint.h>

#include "src/graph/graph.h"
#include "src/plan/plan.h"
#include "src/plan/solver.h"

typedef struct Relay {
    pthread_mutex_t mu;
    const Graph *g;
    int64_t budget;         /* PLAN_NO_BUDGET: every plan fits */
    Progress *up;           /* the caller's; NULL: nobody listens */
    double offered;         /* cost of the last plan passed on (-1: none) */
    Plan held;              /* a helper's latest plan, until taken */
    int fresh;              /* held came since the last relay_take */
    double best;            /* the cheapest plan within the budget offered (-1: none) */
    double bound;           /* the best lower bound told (relay_bound; -1: none) */
    double floor;           /* no schedule in any order costs less (relay_set_floor; -1: none) */
} Relay;

/* offered: the cost of a plan the caller was already given (-1: none). */
void relay_init(Relay *r, const Graph *g, int64_t budget, Progress *up, double offered);
void relay_done(Relay *r);

/* A ProgressOffer (ctx: the Relay): steps passed on to up's listener when
 * they fit the budget and cost less than the last plan passed on. */
void relay_offer(void *ctx, const int *steps, int T, const char *origin);
/* The same for a helper thread's plans, which are also held for
 * relay_take. */
void relay_offer_held(void *ctx, const int *steps, int T, const char *origin);
/* 1 with the latest held plan copied into out when one came since the
 * last take, else 0. r may be NULL (0). */
int relay_take(Relay *r, Plan *out);
/* The cost of the last plan passed on (-1: none). */
double relay_offered(Relay *r);
/* A ProgressBound (ctx: the Relay): a helper's lower bound at this
 * budget, passed on to up's listener; with a tolerance too small to show
 * it becomes the cost at or below which the solve's searches may end
 * (relay_enough). A lower bound than one told before changes nothing. */
void relay_bound(void *ctx, double bound);
/* A cost no schedule in any order goes below at this budget (the cost of
 * running each needed node once, a bound over every order): a plan within
 * the same tolerance of it ends the searches too, whatever its order. */
void relay_set_floor(Relay *r, double cost);
/* 1 when the cheapest of the plans within the budget offered through the
 * relay and `cost` (a search's own best within the budget; < 0: none) is
 * within the tolerance of the floor, or of the helper's bound and not
 * below it (where it left the bound's order). r may be NULL (0). */
int relay_enough(Relay *r, double cost);

#endif
