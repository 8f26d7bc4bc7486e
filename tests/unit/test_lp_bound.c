/* test_lp_bound.c — engine_lagrangian and engine_lp_safe_bound
 * (solvers/checkmate/engine.h), the LP bounds the cascade and Checkmate's
 * relaxation report: on small random covering LPs (min c'x, Ax >= b,
 * x in [0, 1], the shape of the cascade's rows) the Lagrangian value of
 * any row prices lies below CLP's optimum and below every 0/1 point that
 * meets the rows (all 2^n of them tried), and at CLP's own prices it
 * equals CLP's objective to 1e-7; a hand-made LP has its known value;
 * a column whose needed bound is infinite gives no bound. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "solvers/checkmate/engine.h"

#define MAXN 10
#define MAXM 8

static unsigned draw(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

typedef struct {
    int m, n;
    double A[MAXM][MAXN], b[MAXM], c[MAXN];
} Cov;

/* The LP by columns (start, len, idx, val) for engine_lagrangian and CLP. */
typedef struct {
    CoinBigIndex start[MAXN + 1];
    int len[MAXN], idx[MAXM * MAXN];
    double val[MAXM * MAXN], rlo[MAXM], rup[MAXM], clo[MAXN], cup[MAXN];
    EngineLp lp;
} Cols;

static void cols_of(const Cov *P, Cols *C)
{
    int q = 0;
    for (int j = 0; j < P->n; j++) {
        C->start[j] = q;
        for (int r = 0; r < P->m; r++)
            if (P->A[r][j] != 0) {
                C->idx[q] = r;
                C->val[q++] = P->A[r][j];
            }
        C->len[j] = q - (int)C->start[j];
        C->clo[j] = 0;
        C->cup[j] = 1;
    }
    C->start[P->n] = q;     /* CLP reads the end of the last column here */
    for (int r = 0; r < P->m; r++) {
        C->rlo[r] = P->b[r];
        C->rup[r] = 1e30;
    }
    C->lp = (EngineLp){P->m, P->n, C->rlo, C->rup, P->c, C->clo, C->cup, C->start, C->len, C->idx, C->val};
}

/* The cheapest 0/1 point meeting every row, or HUGE_VAL. */
static double brute_01(const Cov *P)
{
    double best = HUGE_VAL;
    for (unsigned x = 0; x < 1u << P->n; x++) {
        int ok = 1;
        for (int r = 0; r < P->m && ok; r++) {
            double s = 0;
            for (int j = 0; j < P->n; j++)
                s += (x >> j & 1) * P->A[r][j];
            ok = s >= P->b[r] - 1e-12;
        }
        if (ok) {
            double c = 0;
            for (int j = 0; j < P->n; j++)
                c += (x >> j & 1) * P->c[j];
            best = fmin(best, c);
        }
    }
    return best;
}

static Clp_Simplex *clp_of(const Cols *C, const Cov *P)
{
    Clp_Simplex *lp = Clp_newModel();
    Clp_setLogLevel(lp, 0);
    Clp_loadProblem(lp, P->n, P->m, C->start, C->idx, C->val, C->clo, C->cup, P->c, C->rlo, C->rup);
    return lp;
}

static void test_random_covers(void **st TU_UNUSED)
{
    unsigned seed = 4242;
    int solved = 0, fractional = 0;
    for (int round = 0; round < 200; round++) {
        Cov P = {.m = 1 + (int)(draw(&seed) % MAXM), .n = 2 + (int)(draw(&seed) % (MAXN - 1))};
        for (int j = 0; j < P.n; j++)
            P.c[j] = (double)(1 + draw(&seed) % 50) / (1 + draw(&seed) % 7);
        for (int r = 0; r < P.m; r++) {
            double row = 0;
            for (int j = 0; j < P.n; j++) {
                P.A[r][j] = draw(&seed) % 3 ? 0 : (double)(1 + draw(&seed) % 9);
                row += P.A[r][j];
            }
            P.b[r] = row * (double)(draw(&seed) % 100) / 100;    /* always within reach of x = 1 */
        }
        Cols C;
        cols_of(&P, &C);
        double best01 = brute_01(&P);
        assert_true(best01 < HUGE_VAL);
        /* any prices: below every 0/1 point that meets the rows */
        for (int k = 0; k < 20; k++) {
            double y[MAXM];
            for (int r = 0; r < P.m; r++)
                y[r] = ((double)(draw(&seed) % 200) - 50) / 37;    /* negative ones too: clamped */
            double L = engine_lagrangian(&C.lp, y);
            if (L > best01 + 1e-9)
                fail_msg("round %d: the Lagrangian %g is above the best 0/1 point %g", round, L, best01);
        }
        Clp_Simplex *lp = clp_of(&C, &P);
        Clp_initialDualSolve(lp);
        assert_true(Clp_isProvenOptimal(lp));
        double obj = Clp_objectiveValue(lp), safe = engine_lp_safe_bound(lp);
        if (fabs(safe - obj) > 1e-7 * (1 + fabs(obj)))
            fail_msg("round %d: at CLP's prices %.12g, CLP's objective %.12g", round, safe, obj);
        assert_true(safe <= best01 + 1e-9);
        solved++;
        fractional += obj < best01 - 1e-6;
        Clp_deleteModel(lp);
    }
    /* the LPs are not all integral: the bound was tested below the 0/1 optimum */
    assert_int_equal(solved, 200);
    assert_true(fractional >= 50);
}

/* min x1 + x2 with x1 + 2 x2 >= 1: the optimum 0.5 (x2 = 1/2), price 1/2. */
static void test_hand_lp(void **st TU_UNUSED)
{
    Cov P = {.m = 1, .n = 2, .A = {{1, 2}}, .b = {1}, .c = {1, 1}};
    Cols C;
    cols_of(&P, &C);
    double y = 0.5;
    assert_true(fabs(engine_lagrangian(&C.lp, &y) - 0.5) < 1e-12);
    /* price 1: 1 + min(0, 1 - 1) + min(0, 1 - 2) = 0 */
    y = 1;
    assert_true(fabs(engine_lagrangian(&C.lp, &y)) < 1e-12);
    /* a negative price on a row with no upper side counts as 0: the
     * columns alone, both at 0 */
    y = -3;
    assert_true(fabs(engine_lagrangian(&C.lp, &y)) < 1e-12);
    Clp_Simplex *lp = clp_of(&C, &P);
    Clp_initialDualSolve(lp);
    assert_true(fabs(engine_lp_safe_bound(lp) - 0.5) < 1e-9);
    Clp_deleteModel(lp);
    /* a column that its reduced cost drives to an infinite bound */
    C.cup[1] = 1e30;
    y = 1;
    assert_true(engine_lagrangian(&C.lp, &y) == -HUGE_VAL);
}

TU_MAIN(TU_TEST(test_random_covers) TU_TEST(test_hand_lp))
