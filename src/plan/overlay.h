/* overlay.h — structure a solver can show besides its plan: labelled groups
 * of nodes (Kusumoto's lower-set blocks V_1..V_k, TWRemat's bags, Chen's
 * segments, Beaumont's stages), optionally arranged as a tree (parent
 * index) with a recursion level. One generic type, so the explorer's
 * partition, bag and segment views are one widget with several sources.
 *
 * The caller owns an Overlay (overlay_init/overlay_done); groups own their
 * label and node array.
 */
#ifndef REMAT_OVERLAY_H
#define REMAT_OVERLAY_H

typedef enum OverlayKind {
    OVERLAY_BLOCK,      /* a block V_i of a partition (lower-set difference) */
    OVERLAY_BAG,        /* a tree-decomposition bag */
    OVERLAY_SEPARATOR,  /* a separator chosen at some recursion level */
    OVERLAY_SEGMENT,    /* a checkpointed segment / stage */
    OVERLAY_OTHER
} OverlayKind;

typedef struct OverlayGroup {
    OverlayKind kind;
    char *label;        /* owned */
    int parent;         /* index of parent group, or -1 */
    int level;          /* recursion depth, 0 at the top */
    int *nodes;         /* owned node indices */
    int n, cap;
} OverlayGroup;

typedef struct Overlay {
    char *title;        /* owned; e.g. "lower sets (k=7)"; may be NULL */
    int width;          /* tree width for decompositions, else 0 */
    OverlayGroup *groups;
    int n, cap;
} Overlay;

void overlay_init(Overlay *o);
void overlay_done(Overlay *o);
void overlay_set_title(Overlay *o, const char *title);
/* The title from a printf format; the arguments may read the old title. */
void overlay_set_titlef(Overlay *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* dst (initialised here) becomes a deep copy of src. */
void overlay_copy(Overlay *dst, const Overlay *src);
/* Append a group and return its index; label copied. */
int overlay_add(Overlay *o, OverlayKind kind, const char *label, int parent, int level);
void overlay_add_node(Overlay *o, int group, int node);
const char *overlay_kind_name(OverlayKind k);

#endif
