/* registry.c — the table of every solver, in the order pickers list them.
 * Adding a solver: write solvers/NAME.c defining `const SolverClass
 * solver_NAME`, then add it to SOLVERS below. */
#include <string.h>

#include "src/plan/solver.h"

#define SOLVERS(X) \
    X(noremat) \
    X(chen) \
    X(greedy) \
    X(dtr) \
    X(echo) \
    X(checkmate) \
    X(checkmate_free) \
    X(checkmate_lp) \
    X(twremat) \
    X(revolve) \
    X(join) \
    X(kusumoto_exact) \
    X(kusumoto_approx) \
    X(fastsa) \
    X(auto)

#define X(name) extern const SolverClass solver_##name;
SOLVERS(X)
#undef X

static const SolverClass *const table[] = {
#define X(name) &solver_##name,
    SOLVERS(X)
#undef X
};

int solver_count(void)
{
    return (int)(sizeof table / sizeof table[0]);
}

const SolverClass *solver_at(int i)
{
    return i >= 0 && i < solver_count() ? table[i] : NULL;
}

const SolverClass *solver_find(const char *name)
{
    for (int i = 0; i < solver_count(); i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}
