/* import_text.c — line-oriented graph formats of other tools:
 *  - Kusumoto et al.'s computational-graph text ("V F" header, V value
 *    lines "id size name", F function records: direction, "k p", k lines
 *    "vid role", p lines "vid", type, attributes JSON);
 *  - `p remat2` (twremat): "node ID [deps D...] [cpu C mem M [overhead O] |
 *    effectful | pointer] [target]", optional "memlimit N".
 * Lines of any length, numbers strictly decimal (numparse.h) and sums
 * checked; errors name the file, line and column. docs/importers.md gives
 * the mappings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/fileio.h"
#include "src/graph/graph_import.h"
#include "src/base/numparse.h"
#include "src/base/xalloc.h"

/* ---- a line reader and tokenizer ------------------------------------- */

typedef struct {
    const char *p, *end;
    int line;
    int64_t total;  /* lines in the text */
    char *buf;      /* the current line, NUL-terminated, without "\r\n" */
    size_t cap;
} Lines;

/* A reader over text, which must be UTF-8 (else the error, naming fname,
 * and nothing to lines_done). */
static int lines_init(Lines *r, const char *text, size_t len, const char *fname, Err *e)
{
    int rc = text_check_utf8(text, len, fname, e);
    if (rc)
        return rc;
    *r = (Lines){text, text + len, 0, 0, xmalloc(256), 256};
    for (const char *q = text; q < r->end && (q = memchr(q, '\n', (size_t)(r->end - q))); q++)
        r->total++;
    r->total += len && text[len - 1] != '\n';
    return ERR_OK;
}

static void lines_done(Lines *r)
{
    free(r->buf);
}

/* Next line into r->buf, whole however long; NULL at the end. */
static char *next_line(Lines *r)
{
    if (r->p >= r->end)
        return NULL;
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    size_t n = nl ? (size_t)(nl - r->p) : (size_t)(r->end - r->p);
    if (n + 1 > r->cap) {
        r->cap = n + 1;
        r->buf = xrealloc(r->buf, r->cap);
    }
    memcpy(r->buf, r->p, n);
    r->buf[n] = '\0';
    if (n && r->buf[n - 1] == '\r')
        r->buf[n - 1] = '\0';
    r->p += n + (nl ? 1 : 0);
    r->line++;
    return r->buf;
}

/* Split s in place at blanks; up to max tokens into tok. Returns the count,
 * or max + 1 when there are more. */
static int split(char *s, char **tok, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == max)
            return max + 1;
        tok[n++] = t;
    }
    return n;
}

/* 1-based column of token t within the current line. */
static int col_of(const Lines *r, const char *t)
{
    return (int)(t - r->buf) + 1;
}

/* ---- Kusumoto et al. computational graphs ------------------------------ */

typedef struct {
    int64_t vid;
    char *role;
} FnIn;

typedef struct {
    int backward;
    int64_t k, p;
    FnIn *in;
    int64_t *out;
    char *type;
    int line;
} FnRec;

typedef struct {
    int64_t V, F;
    int64_t *vsize;
    char **vname;
    int64_t *producer;  /* forward function index per value, -1 */
    FnRec *fn;
    int64_t nfn;
    char **id;          /* node id of each value */
} Pfn;

static void pfn_free(Pfn *P)
{
    /* V can be set from a header refused before the arrays exist */
    for (int64_t i = 0; i < P->V && (P->vname || P->id); i++) {
        if (P->vname)
            free(P->vname[i]);
        if (P->id)
            free(P->id[i]);
    }
    free(P->vname);
    free(P->id);
    free(P->vsize);
    free(P->producer);
    for (int64_t i = 0; i < P->nfn; i++) {
        for (int64_t j = 0; j < P->fn[i].k; j++)
            free(P->fn[i].in[j].role);
        free(P->fn[i].in);
        free(P->fn[i].out);
        free(P->fn[i].type);
    }
    free(P->fn);
}

/* Counts come before the lines they announce: anything that cannot fit in
 * the rest of the text is refused before memory is set aside for it. */
static int64_t lines_left(const Lines *r)
{
    return r->total - r->line;
}

static int read_pfn(Lines *r, Pfn *P, const char *fname, Err *e)
{
    char *tok[4];
    char *ln = next_line(r);
    if (!ln || split(ln, tok, 2) != 2 || num_parse_int(tok[0], INT32_MAX, &P->V) ||
        num_parse_int(tok[1], INT32_MAX, &P->F) || P->V < 1 || P->F % 2)
        return err_set(e, ERR_PARSE, "%s:1:1: expected \"V F\" (value and function counts, F even)", fname);
    if (P->V + 4 * P->F > lines_left(r))
        return err_set(e, ERR_PARSE, "%s:1:1: the header announces %lld values and %lld functions; "
                       "the file has only %lld more lines", fname, (long long)P->V, (long long)P->F,
                       (long long)lines_left(r));
    P->vsize = xcalloc((size_t)P->V, sizeof *P->vsize);
    P->vname = xcalloc((size_t)P->V, sizeof *P->vname);
    P->id = xcalloc((size_t)P->V, sizeof *P->id);
    P->producer = xmallocarray((size_t)P->V, sizeof *P->producer);
    P->fn = xcalloc((size_t)P->F + 1, sizeof *P->fn);
    for (int64_t i = 0; i < P->V; i++)
        P->producer[i] = -1;
    for (int64_t i = 0; i < P->V; i++) {
        int64_t id;
        ln = next_line(r);
        if (!ln || split(ln, tok, 3) != 3 || num_parse_int(tok[0], INT64_MAX, &id) || id != i)
            return err_set(e, ERR_PARSE, "%s:%d:1: expected value line \"%lld SIZE NAME\"", fname,
                           r->line, (long long)i);
        int rc = num_parse_int(tok[1], GRAPH_SIZE_MAX, &P->vsize[i]);
        if (rc)
            return err_set(e, ERR_PARSE, "%s:%d:%d: value %lld: size '%s' is not an integer in 0..2^53",
                           fname, r->line, col_of(r, tok[1]), (long long)i, tok[1]);
        P->vname[i] = xstrdup(tok[2]);
    }
    for (P->nfn = 0; P->nfn < P->F;) {
        FnRec *f = &P->fn[P->nfn];
        ln = next_line(r);
        f->line = r->line;
        if (!ln || (strcmp(ln, "forward") && strcmp(ln, "backward")))
            return err_set(e, ERR_PARSE, "%s:%d:1: expected \"forward\" or \"backward\"", fname, r->line);
        f->backward = ln[0] == 'b';
        P->nfn++;   /* from here on f is freed with the others */
        ln = next_line(r);
        int64_t k, p;
        if (!ln || split(ln, tok, 2) != 2 || num_parse_int(tok[0], INT32_MAX, &k) ||
            num_parse_int(tok[1], INT32_MAX, &p))
            return err_set(e, ERR_PARSE, "%s:%d:1: expected \"k p\" (input and output counts)", fname,
                           r->line);
        if (k + p + 2 > lines_left(r))
            return err_set(e, ERR_PARSE, "%s:%d:1: %lld inputs and %lld outputs announced; the file "
                           "has only %lld more lines", fname, r->line, (long long)k, (long long)p,
                           (long long)lines_left(r));
        f->k = k;
        f->p = p;
        f->in = xcalloc((size_t)k + 1, sizeof *f->in);
        f->out = xcalloc((size_t)p + 1, sizeof *f->out);
        for (int64_t j = 0; j < k; j++) {
            ln = next_line(r);
            if (!ln || split(ln, tok, 2) != 2 || num_parse_int(tok[0], P->V - 1, &f->in[j].vid))
                return err_set(e, ERR_PARSE, "%s:%d:1: expected \"VALUE_ID ROLE\" with a value id below %lld",
                               fname, r->line, (long long)P->V);
            f->in[j].role = xstrdup(tok[1]);
        }
        for (int64_t j = 0; j < f->p; j++) {
            ln = next_line(r);
            if (!ln || split(ln, tok, 1) != 1 || num_parse_int(tok[0], P->V - 1, &f->out[j]))
                return err_set(e, ERR_PARSE, "%s:%d:1: expected an output value id below %lld", fname,
                               r->line, (long long)P->V);
        }
        ln = next_line(r);
        if (!ln || !*ln)
            return err_set(e, ERR_PARSE, "%s:%d:1: expected the function type", fname, r->line);
        f->type = xstrdup(ln);
        if (!next_line(r))
            return err_set(e, ERR_PARSE, "%s:%d:1: expected the attribute line", fname, r->line + 1);
        if (!f->backward) {
            if (f->p != 1)
                return err_set(e, ERR_INVALID, "%s:%d:1: a forward function must have exactly one output",
                               fname, f->line);
            if (P->producer[f->out[0]] >= 0)
                return err_set(e, ERR_INVALID, "%s:%d:1: value %lld is produced by two forward functions",
                               fname, f->line, (long long)f->out[0]);
            P->producer[f->out[0]] = P->nfn - 1;
        }
    }
    int64_t half = P->F / 2;
    for (int64_t i = 0; i < P->F; i++)
        if (P->fn[i].backward != (i >= half))
            return err_set(e, ERR_INVALID, "%s:%d:1: the first F/2 records must be forward, the rest backward",
                           fname, P->fn[i].line);
    return ERR_OK;
}

static int is_loss_type(const char *type)
{
    return strstr(type, "Loss") || strstr(type, "CrossEntropy");
}

static char *cat2(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = xmalloc(la + lb + 1);
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
    return s;
}

static Graph *build_pfn(Pfn *P, const char *fname, Err *e)
{
    Graph *g = graph_new();
    char *src = cat2("imported from Kusumoto et al. computational graph ", fname);
    char *src2 = cat2(src, "; costs: 10 for Conv* functions, 1 otherwise");
    graph_set_info(g, "", src2, "unit", "byte");
    free(src);
    free(src2);
    char where[64];
    Err ne;
    int64_t V = P->V, half = P->F / 2;
    /* ids: value ids for activations, names for parameters and inputs */
    for (int64_t v = 0; v < V; v++) {
        char num[32];
        if (strcmp(P->vname[v], "_") == 0) {
            snprintf(num, sizeof num, "v%lld", (long long)v);
            P->id[v] = xstrdup(num);
        } else {
            P->id[v] = cat2(P->vname[v][0] >= '0' && P->vname[v][0] <= '9' ? "input" : "", P->vname[v]);
        }
    }
    for (int64_t v = 0; v < V; v++) {
        if (P->producer[v] >= 0)
            continue;
        snprintf(where, sizeof where, "value %lld", (long long)v);
        if (graph_add_node(g, P->id[v], P->vname[v][0] == '/' ? "param" : "input", PHASE_INPUT,
                           P->vsize[v], 0, 0, where, &ne) < 0)
            goto fail;
    }
    for (int64_t i = 0; i < half; i++) {
        FnRec *f = &P->fn[i];
        int64_t y = f->out[0];
        snprintf(where, sizeof where, "line %d", f->line);
        double cost = strncmp(f->type, "Conv", 4) == 0 ? 10 : 1;
        int v = graph_add_node(g, P->id[y], f->type, is_loss_type(f->type) ? PHASE_LOSS : PHASE_FWD,
                               P->vsize[y], cost, 0, where, &ne);
        if (v < 0)
            goto fail;
        for (int64_t j = 0; j < f->k; j++)
            graph_add_input_name(g, v, P->id[f->in[j].vid]);
    }
    /* which backward records output each value (the gradient they make),
     * as lists in record order: built once, so resolving every gradient
     * read is linear in the file */
    int64_t *first = xcalloc((size_t)V + 1, sizeof *first), nout = 0;
    for (int64_t q = half; q < P->F; q++)
        for (int64_t o = 0; o < P->fn[q].p; o++)
            first[P->fn[q].out[o] + 1]++;
    for (int64_t v = 0; v < V; v++)
        first[v + 1] += first[v];
    nout = first[V];
    int64_t *who = xmallocarray((size_t)nout + 1, sizeof *who), *fill = xmallocarray((size_t)V + 1, sizeof *fill);
    memcpy(fill, first, (size_t)V * sizeof *fill);
    for (int64_t q = half; q < P->F; q++)
        for (int64_t o = 0; o < P->fn[q].p; o++)
            who[fill[P->fn[q].out[o]]++] = q;
    free(fill);
    char **gid = xcalloc((size_t)half + 1, sizeof *gid);
    for (int64_t i = 0; i < half; i++)
        gid[i] = cat2(P->id[P->fn[i].out[0]], ".grad");
    int rc = ERR_OK;
    /* backward record half+i differentiates forward record i: it reads the
     * gradient of i's output (made by the backward records that list that
     * value among their outputs) and the forward values it retains */
    for (int64_t i = 0; i < half && !rc; i++) {
        FnRec *b = &P->fn[half + i], *f = &P->fn[i];
        char *op = cat2(f->type, "_bwd");
        int64_t size = 0;
        for (int64_t j = 0; j < b->p; j++) {
            size += P->vsize[b->out[j]];
            if (size > GRAPH_SIZE_MAX) {
                rc = err_set(e, ERR_INVALID, "%s:%d:1: the sizes of this backward function's outputs "
                             "sum past 2^53", fname, b->line);
                break;
            }
        }
        double cost = strncmp(f->type, "Conv", 4) == 0 ? 10 : 1;
        snprintf(where, sizeof where, "line %d", b->line);
        int v = rc ? -1 : graph_add_node(g, gid[i], op, PHASE_BWD, size, cost, 0, where, &ne);
        free(op);
        if (v < 0) {
            if (!rc)
                rc = err_set(e, ne.code, "%s: %s", fname, ne.msg);
            break;
        }
        if (!is_loss_type(f->type))
            graph_set_grad_of_name(g, v, P->id[f->out[0]]);
        for (int64_t j = 0; j < b->k; j++) {
            int64_t x = b->in[j].vid;
            if (strcmp(b->in[j].role, "gradient") == 0) {
                for (int64_t w = first[x]; w < first[x + 1]; w++)
                    if (who[w] != half + i)
                        graph_add_input_name(g, v, gid[who[w] - half]);
            } else {
                graph_add_input_name(g, v, P->id[x]);
            }
        }
    }
    for (int64_t i = 0; i < half; i++)
        free(gid[i]);
    free(gid);
    free(first);
    free(who);
    if (rc) {
        graph_free(g);
        return NULL;
    }
    if (graph_finalize(g, e)) {
        err_prefix(e, fname);
        graph_free(g);
        return NULL;
    }
    return g;
fail:
    err_set(e, ne.code, "%s: %s", fname, ne.msg);
    graph_free(g);
    return NULL;
}

Graph *graph_from_pfn(const char *text, size_t len, const char *fname, Err *e)
{
    Lines r;
    if (lines_init(&r, text, len, fname, e))
        return NULL;
    Pfn P;
    memset(&P, 0, sizeof P);
    Graph *g = NULL;
    if (read_pfn(&r, &P, fname, e) == ERR_OK)
        g = build_pfn(&P, fname, e);
    pfn_free(&P);
    lines_done(&r);
    return g;
}

/* ---- p remat2 ------------------------------------------------------------ */

/* twremat's ids are integers: "007" and "7" name one node, so ids are kept
 * in their canonical decimal form. */
static int remat2_id(const Lines *r, const char *tok, char *buf, size_t n, const char *fname,
                     const char *what, Err *e)
{
    int64_t v;
    if (num_parse_int(tok, INT64_MAX, &v))
        return err_set(e, ERR_PARSE, "%s:%d:%d: %s '%s' is not a non-negative integer", fname, r->line,
                       col_of(r, tok), what, tok);
    snprintf(buf, n, "%lld", (long long)v);
    return ERR_OK;
}

Graph *graph_from_remat2(const char *text, size_t len, const char *fname, Err *e)
{
    Lines r;
    if (lines_init(&r, text, len, fname, e))
        return NULL;
    char *ln = next_line(&r);
    if (!ln || strncmp(ln, "p remat2", 8) != 0) {
        err_set(e, ERR_PARSE, "%s:1:1: expected \"p remat2\"", fname);
        lines_done(&r);
        return NULL;
    }
    Graph *g = graph_new();
    char *src = cat2("imported from p remat2 file ", fname);
    graph_set_info(g, "", src, "cpu", "mem");
    free(src);
    char **deps = NULL;     /* canonical dep ids of the current line */
    int ndeps = 0, capdeps = 0;
    int rc = ERR_OK;
    /* one statement per line, as twremat writes them */
    while (!rc && (ln = next_line(&r))) {
        char *save = NULL;
        char *tok = strtok_r(ln, " \t", &save);
        if (!tok)
            continue;
        if (strcmp(tok, "memlimit") == 0) {
            char *n = strtok_r(NULL, " \t", &save);
            int64_t lim;
            if (!n || num_parse_int(n, INT64_MAX, &lim) || strtok_r(NULL, " \t", &save)) {
                rc = err_set(e, ERR_PARSE, "%s:%d:%d: memlimit needs one non-negative integer", fname,
                             r.line, n ? col_of(&r, n) : col_of(&r, tok));
                break;
            }
            char s2[64];
            snprintf(s2, sizeof s2, "; memlimit %lld", (long long)lim);
            char *s3 = cat2(g->source, s2);
            graph_set_info(g, NULL, s3, NULL, NULL);
            free(s3);
            continue;
        }
        if (strcmp(tok, "node") != 0) {
            rc = err_set(e, ERR_PARSE, "%s:%d:%d: expected \"node\" or \"memlimit\", got '%s'", fname,
                         r.line, col_of(&r, tok), tok);
            break;
        }
        char *idt = strtok_r(NULL, " \t", &save), id[32];
        if (!idt) {
            rc = err_set(e, ERR_PARSE, "%s:%d:%d: node needs a numeric id", fname, r.line,
                         col_of(&r, tok) + 4);
            break;
        }
        if ((rc = remat2_id(&r, idt, id, sizeof id, fname, "node id", e)))
            break;
        int64_t cpu = 1, mem = 1;
        const char *op = "op";
        int target = 0, in_deps = 0;
        ndeps = 0;
        while (!rc && (tok = strtok_r(NULL, " \t", &save))) {
            if (strcmp(tok, "deps") == 0) {
                in_deps = 1;
            } else if (strcmp(tok, "cpu") == 0 || strcmp(tok, "mem") == 0 || strcmp(tok, "overhead") == 0) {
                in_deps = 0;
                char *n = strtok_r(NULL, " \t", &save);
                int64_t x;
                /* sizes and costs alike: exact integers up to 2^53 */
                int nr = n ? num_parse_int(n, GRAPH_SIZE_MAX, &x) : NUM_SYNTAX;
                if (nr) {
                    rc = err_set(e, ERR_PARSE, "%s:%d:%d: node %s: %s needs an integer in 0..2^53%s%s%s",
                                 fname, r.line, n ? col_of(&r, n) : col_of(&r, tok), id, tok,
                                 n ? ", got '" : "", n ? n : "", n ? "'" : "");
                    break;
                }
                if (tok[0] == 'c')
                    cpu = x;
                else if (tok[0] == 'm')
                    mem = x;
            } else if (strcmp(tok, "effectful") == 0) {
                in_deps = 0;
                op = "effectful";
                mem = 0;
            } else if (strcmp(tok, "pointer") == 0) {
                in_deps = 0;
                op = "pointer";
                mem = 0;
                cpu = 0;
            } else if (strcmp(tok, "target") == 0) {
                target = 1;
            } else if (in_deps) {
                char dep[32];
                if ((rc = remat2_id(&r, tok, dep, sizeof dep, fname, "dependency", e)))
                    break;
                xgrow((void **)&deps, &capdeps, ndeps + 1, sizeof *deps);
                deps[ndeps++] = xstrdup(dep);
            } else {
                rc = err_set(e, ERR_PARSE, "%s:%d:%d: node %s: unexpected '%s'", fname, r.line,
                             col_of(&r, tok), id, tok);
            }
        }
        if (!rc) {
            char where[64];
            snprintf(where, sizeof where, "line %d", r.line);
            Err ne;
            int v = graph_add_node(g, id, op, PHASE_FWD, mem, (double)cpu, 0, where, &ne);
            if (v < 0) {
                rc = err_set(e, ne.code, "%s: %s", fname, ne.msg);
            } else {
                for (int i = 0; i < ndeps; i++)
                    graph_add_input_name(g, v, deps[i]);
                if (target)
                    graph_add_output_name(g, id);
            }
        }
        for (int i = 0; i < ndeps; i++)
            free(deps[i]);
    }
    free(deps);
    lines_done(&r);
    if (!rc && (rc = graph_finalize(g, e)))
        err_prefix(e, fname);
    if (rc) {
        graph_free(g);
        return NULL;
    }
    return g;
}
