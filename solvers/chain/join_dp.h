/* join_dp.h — Beaumont et al. 2020's dynamic program for join graphs: k
 * chains of l_1..l_k unit stages meeting at a turn (the join, the loss and
 * their backward), c unit memory slots. Canonical strategies (their Thm
 * 3.2): advance j stages on one branch m, store the value reached, solve
 * the rest with one slot fewer, then reverse those j stages as a chain.
 *
 * Slot model (paper units; see docs/solvers/join.md). During the forward
 * phase each branch holds one value (its current start, or the turn input
 * once it is used up) and each advance adds one. The turn needs its k
 * inputs. Reversing j stages of branch m after the rest is done: the other
 * k-1 branches each hold one backward value, branch m holds its start and
 * the incoming backward value, so s = c-(k-1) slots are left; j = 1 needs
 * s >= 2 and costs 1, j >= 2 needs s >= 3 and costs Opt0(j, s-2) (one slot
 * is the working value). Cost = forward stage executions.
 *
 *   J(0, c)   = 0 if c >= k else inf
 *   J(l, c)   = min over m, 1 <= j <= l_m of
 *               j + J(l - j e_m, c-1) + chain(j, c-(k-1))
 *
 * Theorem 3.3 (minimal memory): c_min = k when every l_i = 0, else
 * k + k' + 1 - [some l_i = 1], k' the number of non-empty branches. */
#ifndef REMAT_JOIN_DP_H
#define REMAT_JOIN_DP_H

#define JOIN_DP_INF 1e300
#define JOIN_KMAX 8

typedef struct JoinDP {
    int k;
    int len[JOIN_KMAX];
    int C;              /* slots 0..C */
    long n_states;      /* prod (len_i + 1) */
    double *J;          /* n_states x (C+1) */
    int *choice;        /* m * 65536 + j, or -1 */
    int Lmax, CR;       /* Opt0 table: l 0..Lmax, c 0..CR */
    long long *O0;
    int *O0s;           /* best first split */
} JoinDP;

/* Build for k branches of len[] stages, slots up to C. -1 when the table
 * would exceed max_cells cells (nothing allocated). */
int joindp_build(JoinDP *d, int k, const int *len, int C, long max_cells);
void joindp_free(JoinDP *d);
/* J for the remaining lengths rem[] with c slots. */
double joindp_cost(const JoinDP *d, const int *rem, int c);
/* Theorem 3.3's smallest slot count. */
int join_min_slots(int k, const int *len);
/* Opt0(l, c) from the table (c >= 1), as revolve_opt0. */
long long joindp_opt0(const JoinDP *d, int l, int c);
int joindp_opt0_split(const JoinDP *d, int l, int c);
long joindp_index(const JoinDP *d, const int *rem);

#endif
