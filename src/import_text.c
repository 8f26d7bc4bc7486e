/* import_text.c — line-oriented graph formats of other tools:
 *  - Kusumoto et al.'s computational-graph text ("V F" header, V value
 *    lines "id size name", F function records: direction, "k p", k lines
 *    "vid role", p lines "vid", type, attributes JSON);
 *  - `p remat2` (twremat): "node ID [deps D...] [cpu C mem M [overhead O] |
 *    effectful | pointer] [target]", optional "memlimit N".
 * Errors name the file and line. docs/importers.md gives the mappings.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/graph_import.h"
#include "src/xalloc.h"

/* ---- a tiny line reader ------------------------------------------------ */

typedef struct {
    const char *p, *end;
    int line;
    char buf[4096];
} Lines;

/* Next line (without newline) into r->buf; NULL at end. Over-long lines are
 * cut, which later parsing reports as malformed. */
static const char *next_line(Lines *r)
{
    if (r->p >= r->end)
        return NULL;
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    size_t n = nl ? (size_t)(nl - r->p) : (size_t)(r->end - r->p);
    size_t c = n < sizeof r->buf - 1 ? n : sizeof r->buf - 1;
    memcpy(r->buf, r->p, c);
    r->buf[c] = '\0';
    if (c && r->buf[c - 1] == '\r')
        r->buf[c - 1] = '\0';
    r->p += n + (nl ? 1 : 0);
    r->line++;
    return r->buf;
}

/* ---- Kusumoto et al. computational graphs ------------------------------ */

typedef struct {
    long vid;
    char role[16];
} FnIn;

typedef struct {
    int backward;
    int k, p;
    FnIn *in;
    long *out;
    char type[128];
    int line;
} FnRec;

static void fn_free(FnRec *f, int n)
{
    for (int i = 0; i < n; i++) {
        free(f[i].in);
        free(f[i].out);
    }
    free(f);
}

Graph *graph_from_pfn(const char *text, size_t len, const char *fname, Err *e)
{
    Lines r = {text, text + len, 0, {0}};
    const char *ln = next_line(&r);
    long V, F;
    char extra;
    if (!ln || sscanf(ln, "%ld %ld %c", &V, &F, &extra) != 2 || V < 1 || F < 0 || V > 10000000 ||
        F > 10000000 || F % 2) {
        err_set(e, ERR_PARSE, "%s:1:1: expected \"V F\" (value and function counts, F even)", fname);
        return NULL;
    }
    int64_t *vsize = xcalloc((size_t)V, sizeof *vsize);
    char **vname = xcalloc((size_t)V, sizeof *vname);
    long *producer = xmallocarray((size_t)V, sizeof *producer); /* forward fn index */
    FnRec *fn = xcalloc((size_t)F + 1, sizeof *fn);
    Graph *g = NULL;
    int nf = 0;
    for (long i = 0; i < V; i++) {
        producer[i] = -1;
        long id;
        long long sz;
        char name[1024];
        ln = next_line(&r);
        if (!ln || sscanf(ln, "%ld %lld %1023s", &id, &sz, name) != 3 || id != i || sz < 0) {
            err_set(e, ERR_PARSE, "%s:%d:1: expected value line \"%ld SIZE NAME\"", fname, r.line, i);
            goto out;
        }
        vsize[i] = sz;
        vname[i] = xstrdup(name);
    }
    for (nf = 0; nf < F; nf++) {
        FnRec *f = &fn[nf];
        ln = next_line(&r);
        f->line = r.line;
        if (!ln || (strcmp(ln, "forward") && strcmp(ln, "backward"))) {
            err_set(e, ERR_PARSE, "%s:%d:1: expected \"forward\" or \"backward\"", fname, r.line);
            goto out;
        }
        f->backward = ln[0] == 'b';
        ln = next_line(&r);
        if (!ln || sscanf(ln, "%d %d", &f->k, &f->p) != 2 || f->k < 0 || f->p < 0 || f->k > 100000 ||
            f->p > 100000) {
            err_set(e, ERR_PARSE, "%s:%d:1: expected \"k p\" (input and output counts)", fname, r.line);
            goto out;
        }
        f->in = xcalloc((size_t)f->k + 1, sizeof *f->in);
        f->out = xcalloc((size_t)f->p + 1, sizeof *f->out);
        for (int j = 0; j < f->k; j++) {
            ln = next_line(&r);
            if (!ln || sscanf(ln, "%ld %15s", &f->in[j].vid, f->in[j].role) != 2 || f->in[j].vid < 0 ||
                f->in[j].vid >= V) {
                err_set(e, ERR_PARSE, "%s:%d:1: expected \"VALUE_ID ROLE\" with a value id below %ld",
                        fname, r.line, V);
                goto out;
            }
        }
        for (int j = 0; j < f->p; j++) {
            ln = next_line(&r);
            if (!ln || sscanf(ln, "%ld", &f->out[j]) != 1 || f->out[j] < 0 || f->out[j] >= V) {
                err_set(e, ERR_PARSE, "%s:%d:1: expected an output value id below %ld", fname, r.line, V);
                goto out;
            }
        }
        ln = next_line(&r);
        if (!ln || !*ln) {
            err_set(e, ERR_PARSE, "%s:%d:1: expected the function type", fname, r.line);
            goto out;
        }
        snprintf(f->type, sizeof f->type, "%s", ln);
        if (!next_line(&r)) {
            err_set(e, ERR_PARSE, "%s:%d:1: expected the attribute line", fname, r.line + 1);
            goto out;
        }
        if (!f->backward) {
            if (f->p != 1) {
                err_set(e, ERR_INVALID, "%s:%d:1: a forward function must have exactly one output", fname,
                        f->line);
                goto out;
            }
            if (producer[f->out[0]] >= 0) {
                err_set(e, ERR_INVALID, "%s:%d:1: value %ld is produced by two forward functions",
                        fname, f->line, f->out[0]);
                goto out;
            }
            producer[f->out[0]] = nf;
        }
    }
    long half = F / 2;
    for (long i = 0; i < F; i++)
        if (fn[i].backward != (i >= half)) {
            err_set(e, ERR_INVALID, "%s:%d:1: the first F/2 records must be forward, the rest backward",
                    fname, fn[i].line);
            goto out;
        }

    g = graph_new();
    char src[1100];
    snprintf(src, sizeof src, "imported from Kusumoto et al. computational graph %s; costs: 10 for "
             "Conv* functions, 1 otherwise", fname);
    graph_set_info(g, "", src, "unit", "byte");
    char id[1100], where[64];
    Err ne;
    /* ids: value ids for activations, names for parameters and inputs */
#define VAL_ID(buf, v)                                                                   \
    (strcmp(vname[v], "_") == 0 ? snprintf(buf, sizeof buf, "v%ld", (long)(v))           \
                                : snprintf(buf, sizeof buf, "%s%s", isdigit((unsigned char)vname[v][0]) ? "input" : "", vname[v]))
    for (long v = 0; v < V; v++) {
        if (producer[v] >= 0)
            continue;
        VAL_ID(id, v);
        snprintf(where, sizeof where, "value %ld", v);
        if (graph_add_node(g, id, vname[v][0] == '/' ? "param" : "input", PHASE_INPUT, vsize[v], 0, 0,
                           where, &ne) < 0) {
            err_set(e, ne.code, "%s: %s", fname, ne.msg);
            goto fail;
        }
    }
    for (long i = 0; i < half; i++) {
        FnRec *f = &fn[i];
        long y = f->out[0];
        VAL_ID(id, y);
        snprintf(where, sizeof where, "line %d", f->line);
        int is_loss = strstr(f->type, "Loss") || strstr(f->type, "CrossEntropy");
        double cost = strncmp(f->type, "Conv", 4) == 0 ? 10 : 1;
        int v = graph_add_node(g, id, f->type, is_loss ? PHASE_LOSS : PHASE_FWD, vsize[y], cost, 0,
                               where, &ne);
        if (v < 0) {
            err_set(e, ne.code, "%s: %s", fname, ne.msg);
            goto fail;
        }
        for (int j = 0; j < f->k; j++) {
            VAL_ID(id, f->in[j].vid);
            graph_add_input_name(g, v, id);
        }
    }
    /* backward record half+i differentiates forward record i: it reads the
     * gradient of i's output (made by the backward records that list that
     * value among their outputs) and the forward values it retains */
    for (long i = 0; i < half; i++) {
        FnRec *b = &fn[half + i], *f = &fn[i];
        char fid[1100], bid[1200], op[160];
        VAL_ID(fid, f->out[0]);
        snprintf(bid, sizeof bid, "%s.grad", fid);
        snprintf(op, sizeof op, "%s_bwd", f->type);
        int64_t size = 0;
        for (int j = 0; j < b->p; j++)
            size += vsize[b->out[j]];
        double cost = strncmp(f->type, "Conv", 4) == 0 ? 10 : 1;
        snprintf(where, sizeof where, "line %d", b->line);
        int v = graph_add_node(g, bid, op, PHASE_BWD, size, cost, 0, where, &ne);
        if (v < 0) {
            err_set(e, ne.code, "%s: %s", fname, ne.msg);
            goto fail;
        }
        int fwd_is_loss = strstr(f->type, "Loss") || strstr(f->type, "CrossEntropy");
        if (!fwd_is_loss)
            graph_set_grad_of_name(g, v, fid);
        for (int j = 0; j < b->k; j++) {
            long x = b->in[j].vid;
            if (strcmp(b->in[j].role, "gradient") == 0) {
                for (long q = half; q < F; q++)
                    for (int o = 0; o < fn[q].p; o++)
                        if (fn[q].out[o] == x && q != half + i) {
                            char qid[1100], qb[1200];
                            VAL_ID(qid, fn[q - half].out[0]);
                            snprintf(qb, sizeof qb, "%s.grad", qid);
                            graph_add_input_name(g, v, qb);
                        }
            } else {
                VAL_ID(id, x);
                graph_add_input_name(g, v, id);
            }
        }
    }
#undef VAL_ID
    if (graph_finalize(g, e)) {
        err_prefix(e, fname);
        goto fail;
    }
    goto out;
fail:
    graph_free(g);
    g = NULL;
out:
    for (long i = 0; i < V; i++)
        free(vname[i]);
    free(vname);
    free(vsize);
    free(producer);
    fn_free(fn, (int)F);
    return g;
}

/* ---- p remat2 ------------------------------------------------------------ */

Graph *graph_from_remat2(const char *text, size_t len, const char *fname, Err *e)
{
    Lines r = {text, text + len, 0, {0}};
    const char *ln = next_line(&r);
    if (!ln || strncmp(ln, "p remat2", 8) != 0) {
        err_set(e, ERR_PARSE, "%s:1:1: expected \"p remat2\"", fname);
        return NULL;
    }
    Graph *g = graph_new();
    char src[1100];
    snprintf(src, sizeof src, "imported from p remat2 file %s", fname);
    graph_set_info(g, "", src, "cpu", "mem");
    /* the format allows tokens to run across lines; join everything after
     * the header into one token stream and remember each token's line */
    while ((ln = next_line(&r))) {
        char *save = NULL, *tok;
        char *line = r.buf;
        int lno = r.line;
        tok = strtok_r(line, " \t", &save);
        if (!tok)
            continue;
        if (strcmp(tok, "memlimit") == 0) {
            char *n = strtok_r(NULL, " \t", &save);
            char *end;
            if (!n || (strtoll(n, &end, 10), *end)) {
                err_set(e, ERR_PARSE, "%s:%d:1: memlimit needs a number", fname, lno);
                goto fail;
            }
            char s2[1200];
            snprintf(s2, sizeof s2, "%s; memlimit %s", g->source, n);
            graph_set_info(g, NULL, s2, NULL, NULL);
            continue;
        }
        if (strcmp(tok, "node") != 0) {
            err_set(e, ERR_PARSE, "%s:%d:1: expected \"node\" or \"memlimit\", got '%s'", fname, lno, tok);
            goto fail;
        }
        char *id = strtok_r(NULL, " \t", &save);
        char *end;
        if (!id || (strtoll(id, &end, 10), *end)) {
            err_set(e, ERR_PARSE, "%s:%d:6: node needs a numeric id", fname, lno);
            goto fail;
        }
        long long cpu = 1, mem = 1;
        const char *op = "op";
        int target = 0, in_deps = 0;
        char *deps[4096];
        int nd = 0;
        while ((tok = strtok_r(NULL, " \t", &save))) {
            if (strcmp(tok, "deps") == 0) {
                in_deps = 1;
            } else if (strcmp(tok, "cpu") == 0 || strcmp(tok, "mem") == 0 || strcmp(tok, "overhead") == 0) {
                in_deps = 0;
                char *n = strtok_r(NULL, " \t", &save);
                long long x = n ? strtoll(n, &end, 10) : -1;
                if (!n || *end || x < 0) {
                    err_set(e, ERR_PARSE, "%s:%d: node %s: %s needs a non-negative integer", fname, lno, id, tok);
                    goto fail;
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
            } else if (in_deps && (strtoll(tok, &end, 10), !*end)) {
                if (nd < (int)(sizeof deps / sizeof deps[0]))
                    deps[nd++] = tok;
            } else {
                err_set(e, ERR_PARSE, "%s:%d: node %s: unexpected '%s'", fname, lno, id, tok);
                goto fail;
            }
        }
        char where[64];
        snprintf(where, sizeof where, "line %d", lno);
        Err ne;
        int v = graph_add_node(g, id, op, PHASE_FWD, mem, (double)cpu, 0, where, &ne);
        if (v < 0) {
            err_set(e, ne.code, "%s: %s", fname, ne.msg);
            goto fail;
        }
        for (int i = 0; i < nd; i++)
            graph_add_input_name(g, v, deps[i]);
        if (target)
            graph_add_output_name(g, id);
    }
    if (graph_finalize(g, e)) {
        err_prefix(e, fname);
        goto fail;
    }
    return g;
fail:
    graph_free(g);
    return NULL;
}
