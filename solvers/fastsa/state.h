/* state.h — FastSA's annealing state (Imanishi et al. 2023, §2.2): a
 * fixed-length sequence of T = 2^k slots, most of them nop, each holding a
 * unit (one graph node, or a fused group of nodes). Per value, the sorted
 * slots that produce it and read it; the spec's memory curve over the slots
 * in a range-add/range-max segment tree, so the peak is known after every
 * add or remove in O((in + out) log T).
 */
#ifndef REMAT_FASTSA_STATE_H
#define REMAT_FASTSA_STATE_H

#include <stdint.h>

#include "solvers/fastsa/segtree.h"
#include "src/graph/graph.h"

/* Sorted set of slots. */
typedef struct ISet {
    int *a;
    int n, cap;
} ISet;

/* What one slot runs: it reads values in[] and produces values out[]
 * (values are graph nodes); mem[] are the graph nodes it runs, in order. */
typedef struct Unit {
    int *in, n_in;
    int *out, n_out;
    int *mem, n_mem;
    double cost;
    int64_t ws;         /* workspace charged at the unit's own slot */
} Unit;

typedef struct Units {
    const Graph *g;
    Unit *u;
    int n_units;
    int *unit_of;       /* graph node -> the unit producing it alone, or -1 */
    int64_t *vsize;     /* per value */
    const unsigned char *is_out;
} Units;

/* One unit per non-input node; unit_of maps each node to its unit. */
void units_plain(Units *U, const Graph *g);
/* Units for order[0..L) after node grouping (Algorithm 1, appendix C.1):
 * a forward node whose inputs take no more memory than its value is fused
 * into every later unit that reads it, so its readers recompute it. Nodes
 * with keep[v] set are never fused (NULL: none). Groups stay within cap
 * nodes. *seq gets the surviving units in order (caller frees), *L2 their
 * count. */
void units_grouped(Units *U, const Graph *g, const int *order, int L, int cap,
                   const unsigned char *keep, int **seq, int *L2);
void units_done(Units *U);

/* The change one add or remove makes to the memory curve: [l[i], r[i]]
 * += v[i], disjoint pieces in slot order, none zero. */
typedef struct DeltaEvent {
    int pos;
    int64_t v;
} DeltaEvent;

typedef struct Delta {
    int n;
    int *l, *r;
    int64_t *v;
    DeltaEvent *ev;     /* room to compute the pieces */
} Delta;

typedef struct State {
    const Units *U;
    int T;
    int *seq;           /* unit per slot, -1 = nop */
    ISet *P, *R;        /* per value: production slots, read slots */
    SegTree st;
    double cost;
    int count;          /* non-nop slots */
    int *occ, *occ_at;  /* the occupied slots in any order; slot -> index in occ */
    /* The slots changed since the last state_journal_reset (a superset:
     * jover set when more than jcap changed), so a copy of seq kept in
     * step needs only those slots again (state_journal_apply). */
    int *jr, jn, jcap, jover;
    unsigned char *jmark;
    int lae;            /* also keep the smoothed curve (logaddexp=on) */
    double scale;       /* bytes per unit of the smoothed curve */
    SegTreeF sf;
    Delta scratch;      /* room for one unit's delta (any unit's) */
    /* ends of the range adds whose ancestors are not pulled yet (state.c:
     * flush); empty between mutations */
#define DIRTY_MAX 32
    int dirty[DIRTY_MAX], nd, dtop;
} State;

void state_init(State *S, const Units *U, int T);
void state_done(State *S);
/* Turn on the smoothed curve (appendix C.2); before any unit is placed. */
void state_smooth(State *S, double scale);
/* Lay units[0..L) evenly over the slots. The order must be valid. */
void state_load(State *S, const int *units, int L);
/* state_init and state_load with the graph's own order of plain units
 * (units_plain), slack slots per step. */
void state_init_baseline(State *S, const Units *U, int slack);
/* Smallest power of two >= L * slack. */
int state_slots_for(int L, int slack);

/* 1 when every input of unit u is produced before slot t. */
int state_can_add(const State *S, int u, int t);
/* 1 when removing the unit at slot t leaves every reader served and every
 * output produced. */
int state_can_remove(const State *S, int t);
void state_add(State *S, int u, int t);
void state_remove(State *S, int t);

/* What state_add(S, u, t) / state_remove(S, t) would change in the
 * memory curve, without changing anything; *d is S->scratch or as large.
 * The _with forms make the mutation from its delta, computed on the state
 * as it is (nothing changed in between). */
void state_add_delta(const State *S, int u, int t, Delta *d);
void state_remove_delta(const State *S, int t, Delta *d);
void state_add_with(State *S, int u, int t, const Delta *d);
void state_remove_with(State *S, int t, const Delta *d);
/* 1 when the peak (resident inputs included) with d applied would be at
 * most `limit`: the mutation judged without being made. */
int state_delta_fits(const State *S, const Delta *d, int64_t limit);

/* Move the unit at slot t1 to the nop slot t2 when that is local: no
 * other production or read of the values it reads or makes lies between
 * the two slots (nor at them), and its inputs are made before both. Then
 * the move is valid, its life intervals only shift, and it costs a few
 * range adds instead of an add and a remove; 1 when done, 0 (nothing
 * changed) when not local. Moving back is local too. */
int state_move(State *S, int t1, int t2);
/* The same in parts, so a move can be judged before it is made: 1 when
 * the move is local; its delta (as state_add_delta's); the move made from
 * that delta, computed on the state as it is. */
int state_move_local(const State *S, int t1, int t2);
void state_move_delta(const State *S, int t1, int t2, Delta *d);
void state_move_with(State *S, int t1, int t2, const Delta *d);

/* Latest production of v strictly before slot t, or -1. */
int state_prod_before(const State *S, int v, int t);
/* Peak of the spec's memory curve, resident inputs included. */
int64_t state_peak(const State *S);
/* The peak the objective sees: the soft peak with logaddexp on. */
int64_t state_obj_peak(const State *S);
/* Memory at one slot (resident inputs included). */
int64_t state_mem_at(const State *S, int t);

/* Bring copy[0..T), equal to seq at the last reset, up to seq, and reset
 * the journal: only the slots changed since (all of them after many
 * changes). */
void state_journal_apply(State *S, int *copy);

/* Graph-node schedule of a slot sequence (seq[0..S->T), e.g. a snapshot);
 * caller frees. */
int *state_decode(const State *S, const int *seq, int *L);

#endif
