/* revolve.h — the Revolve chain recurrence (Griewank & Walther; Beaumont et
 * al. 2020, Opt0) exposed for tests and other solvers. */
#ifndef REMAT_REVOLVE_H
#define REMAT_REVOLVE_H

/* Opt0(l, c): the fewest forward stage executions needed to run the
 * backward of a chain of l stages with c checkpoint slots, the chain input
 * occupying one of them. Opt0(0,c)=0, Opt0(1,c)=1, Opt0(l,1)=l(l+1)/2 and
 * Opt0(l,c) = min over the first checkpoint position j of
 * j + Opt0(l-j, c-1) + Opt0(j, c). Returns -1 for l<0, c<1, or l>4096. */
long long revolve_opt0(int l, int c);

#endif
