/* replay_cpu.c — the CPU replay backend and the remat-replay document.
 *
 * Buffers of 64 KiB and more come from mmap so that freeing them returns
 * the pages and the resident set follows the schedule; smaller ones from
 * malloc. Every page of an output is written, every page of an input read.
 */
#include "src/replay/replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "src/base/fileio.h"
#include "src/graph/json_util.h"
#include "src/plan/sim.h"
#include "src/base/xalloc.h"

#define MMAP_MIN ((size_t)64 << 10)

void replay_init(Replay *r)
{
    memset(r, 0, sizeof *r);
    r->correlation = NAN;
    r->grad_match = -1;
}

void replay_done(Replay *r)
{
    free(r->steps);
    replay_init(r);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int64_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long long size = 0, res = 0;
    if (f) {
        if (fscanf(f, "%lld %lld", &size, &res) != 2)
            res = 0;
        fclose(f);
    }
    return (int64_t)res * sysconf(_SC_PAGESIZE);
}

typedef struct {
    unsigned char *p;
    size_t n;
} Buf;

/* Under AddressSanitizer every mapped buffer also commits its shadow (an
 * eighth of its size, cleared on munmap), so the resident set measures the
 * sanitizer as well as the plan; the device line says so, and readers of
 * rss_peak (tests/cli/test_replay.sh) know not to compare it then. */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_NOTE ", resident set includes AddressSanitizer's shadow"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_NOTE ", resident set includes AddressSanitizer's shadow"
#endif
#endif
#ifndef RSS_NOTE
#define RSS_NOTE ""
#endif

static int buf_alloc(Buf *b, size_t n)
{
    b->n = n;
    if (n == 0) {
        b->p = NULL;
        return 0;
    }
    if (n >= MMAP_MIN) {
        void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        b->p = m == MAP_FAILED ? NULL : m;
    } else {
        b->p = malloc(n);
    }
    return b->p ? 0 : -1;
}

static void buf_free(Buf *b)
{
    if (!b->p)
        return;
    if (b->n >= MMAP_MIN)
        munmap(b->p, b->n);
    else
        free(b->p);
    b->p = NULL;
}

/* Touch every page: the work a real operator does to its operands. */
static unsigned read_pages(const Buf *b)
{
    unsigned s = 0;
    for (size_t i = 0; i < b->n; i += 4096)
        s += b->p[i];
    return s;
}

static void write_pages(Buf *b, unsigned seed)
{
    for (size_t i = 0; i < b->n; i += 4096)
        b->p[i] = (unsigned char)(seed + i);
    if (b->n)
        b->p[b->n - 1] = (unsigned char)seed;
}

static volatile double spin_sink;

static void spin(double units)
{
    double x = 1.0;
    for (long i = 0; i < (long)units; i++)
        x = x * 1.0000001 + 1e-9;
    spin_sink = x;
}

/* Iterations of spin() per second on this machine. */
static double calibrate(void)
{
    double t0 = now_s();
    spin(2e6);
    double dt = now_s() - t0;
    return dt > 0 ? 2e6 / dt : 1e9;
}

int replay_scale_check(const Graph *g, int64_t peak, double scale, Err *e)
{
    /* whole-number scales are exact; below 1 each buffer is rounded to a
     * whole byte, half a byte per live value at most, which must stay
     * under 1 % of the scaled peak even if every value were live */
    if (scale >= 1 || peak <= 0)
        return ERR_OK;
    double need = 50.0 * g->n / (double)peak;
    if (scale >= need)
        return ERR_OK;
    return err_set(e, ERR_USAGE,
                   "--scale %g is too small for this plan: buffers are rounded to whole bytes, which "
                   "at this scale could move the measured peak by more than 1%% (scaled peak %.3g "
                   "bytes); use --scale %.3g or more",
                   scale, (double)peak * scale, need < 1 ? need : 1.0);
}

double replay_cost_correlation(const Replay *r, const Graph *g, const Plan *plan)
{
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    int n = plan->T;
    for (int t = 0; t < n; t++) {
        double x = g->nodes[plan->steps[t]].cost, y = r->steps[t].time_s;
        sx += x;
        sy += y;
        sxx += x * x;
        syy += y * y;
        sxy += x * y;
    }
    double vx = n * sxx - sx * sx, vy = n * syy - sy * sy;
    return (n > 1 && vx > 0 && vy > 0) ? (n * sxy - sx * sy) / sqrt(vx * vy) : NAN;
}

int replay_cpu(const Graph *g, const Plan *plan, double scale, double target_s, Replay *out,
               Err *e)
{
    replay_init(out);
    Sim s;
    int rc = sim_run(g, plan->steps, plan->T, &s, e);
    if (rc)
        return rc;
    if (scale <= 0) {
        scale = s.peak > 0 ? (double)(64 << 20) / (double)s.peak : 1;
        if (scale < 1)
            scale = 1;
    }
    /* whole-number scales keep "allocated bytes / scale" exact */
    if (scale >= 1)
        scale = floor(scale);
    if ((rc = replay_scale_check(g, s.peak, scale, e))) {
        sim_done(&s);
        return rc;
    }
    snprintf(out->backend, sizeof out->backend, "cpu");
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(out->device, sizeof out->device, "cpu (%ld cores), buffers >= 64 KiB via mmap%s", ncpu,
             RSS_NOTE);
    out->scale = scale;
    out->T = plan->T;
    out->steps = xcalloc((size_t)plan->T + 1, sizeof *out->steps);
    out->simulated_peak = s.peak;

    double total_cost = 0;
    for (int t = 0; t < plan->T; t++)
        total_cost += g->nodes[plan->steps[t]].cost;
    double rate = calibrate();
    double per_cost = total_cost > 0 ? target_s * rate / total_cost : 0;

    Buf *val = xcalloc((size_t)g->n, sizeof *val);  /* current copy of each value */
    int *lastp = xmallocarray((size_t)g->n, sizeof *lastp); /* its production step */
    int64_t live = 0;                                  /* scaled bytes allocated */
    int64_t rss0 = rss_bytes();
    unsigned sink = 0;
#define SCALED(x) ((size_t)llround((double)(x) * scale))
    for (int v = 0; v < g->n; v++)
        if (g->nodes[v].phase == PHASE_INPUT) {
            if (buf_alloc(&val[v], SCALED(g->nodes[v].size))) {
                rc = err_set(e, ERR_NOMEM, "replay: cannot allocate input '%s'", g->nodes[v].id);
                goto out;
            }
            write_pages(&val[v], (unsigned)v);
            live += (int64_t)val[v].n;
        }
    double start = now_s();
    for (int t = 0; t < plan->T; t++) {
        int v = plan->steps[t];
        const Node *nd = &g->nodes[v];
        double t0 = now_s();
        Buf outb, ws;
        if (buf_alloc(&outb, SCALED(nd->size)) || buf_alloc(&ws, SCALED(nd->workspace))) {
            rc = err_set(e, ERR_NOMEM, "replay: step %d (%s): cannot allocate %zu bytes", t + 1,
                         nd->id, SCALED(nd->size + nd->workspace));
            goto out;
        }
        live += (int64_t)(outb.n + ws.n);
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            sink += read_pages(&val[g->in_idx[k]]);
        write_pages(&outb, sink);
        write_pages(&ws, sink);
        spin(nd->cost * per_cost);
        /* measured while the step's operands are all present */
        int64_t rss = rss_bytes() - rss0;
        ReplayStep *st = &out->steps[t];
        st->simulated = s.mem[t];
        st->measured = (int64_t)llround((double)live / scale);
        st->rss = (int64_t)llround((double)rss / scale);
        buf_free(&ws);
        live -= (int64_t)ws.n;
        /* the copy this step replaces was freed at its last read already */
        buf_free(&val[v]);
        val[v] = outb;
        lastp[v] = t;
        /* free by the spec: this step's output if nothing reads it, and every
         * input copy whose last read is this step */
        if (s.held_until[t] == t) {
            live -= (int64_t)val[v].n;
            buf_free(&val[v]);
        }
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int u = g->in_idx[k];
            if (g->nodes[u].phase == PHASE_INPUT || !val[u].p)
                continue;
            if (s.held_until[lastp[u]] == t) {
                live -= (int64_t)val[u].n;
                buf_free(&val[u]);
            }
        }
        st->time_s = now_s() - t0;
        if (st->measured > out->measured_peak)
            out->measured_peak = st->measured;
        if (st->rss > out->rss_peak)
            out->rss_peak = st->rss;
    }
    out->seconds = now_s() - start;
    out->correlation = replay_cost_correlation(out, g, plan);
#undef SCALED
out:
    for (int v = 0; v < g->n; v++)
        buf_free(&val[v]);
    free(val);
    free(lastp);
    sim_done(&s);
    (void)sink;
    if (rc)
        replay_done(out);
    return rc;
}

/* ---- remat-replay JSON ------------------------------------------------ */

char *replay_to_json(const Replay *r, const Graph *g, const Plan *plan)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "remat-replay");
    cJSON_AddItemToObject(root, "version", json_int(1));
    cJSON_AddStringToObject(root, "graph", g->name);
    cJSON_AddStringToObject(root, "solver", plan->solver ? plan->solver : "");
    cJSON_AddStringToObject(root, "backend", r->backend);
    cJSON_AddStringToObject(root, "device", r->device);
    cJSON_AddItemToObject(root, "scale", json_num(r->scale));
    cJSON_AddItemToObject(root, "measured_peak", json_int(r->measured_peak));
    cJSON_AddItemToObject(root, "simulated_peak", json_int(r->simulated_peak));
    cJSON_AddItemToObject(root, "rss_peak", json_int(r->rss_peak));
    if (isfinite(r->correlation))
        cJSON_AddItemToObject(root, "time_cost_correlation", json_num(r->correlation));
    else
        cJSON_AddNullToObject(root, "time_cost_correlation");
    cJSON_AddItemToObject(root, "seconds", json_num(r->seconds));
    if (r->grad_match >= 0) {
        cJSON *gr = cJSON_AddObjectToObject(root, "gradients");
        cJSON_AddBoolToObject(gr, "match", r->grad_match);
        cJSON_AddItemToObject(gr, "max_abs_diff", json_num(r->grad_max_diff));
    }
    cJSON *steps = cJSON_AddArrayToObject(root, "steps");
    for (int t = 0; t < r->T; t++) {
        cJSON *st = cJSON_CreateObject();
        cJSON_AddStringToObject(st, "node", g->nodes[plan->steps[t]].id);
        cJSON_AddItemToObject(st, "simulated", json_int(r->steps[t].simulated));
        cJSON_AddItemToObject(st, "measured", json_int(r->steps[t].measured));
        cJSON_AddItemToObject(st, "rss", json_int(r->steps[t].rss));
        cJSON_AddItemToObject(st, "time_s", json_num(r->steps[t].time_s));
        cJSON_AddItemToArray(steps, st);
    }
    return json_print_line(root, 0);
}

int replay_from_json(Replay *r, const char *text, size_t len, const char *fname, Err *e)
{
    replay_init(r);
    cJSON *root = json_parse(text, len, fname, e);
    if (!root)
        return ERR_PARSE;
    int rc = ERR_OK;
    const char *fmt, *backend, *device;
    if (!cJSON_IsObject(root) || json_get_str(root, "format", NULL, &fmt, fname, "$", e) || !fmt ||
        strcmp(fmt, "remat-replay") != 0) {
        rc = err_set(e, ERR_INVALID, "%s: $.format: expected \"remat-replay\"", fname);
        goto out;
    }
    if ((rc = json_get_str(root, "backend", "", &backend, fname, "$", e)) ||
        (rc = json_get_str(root, "device", "", &device, fname, "$", e)) ||
        (rc = json_get_cost(root, "scale", 1, &r->scale, fname, "$", e)) ||
        (rc = json_get_int(root, "measured_peak", 0, INT64_MAX, &r->measured_peak, fname, "$", e)) ||
        (rc = json_get_int(root, "simulated_peak", 0, INT64_MAX, &r->simulated_peak, fname, "$", e)) ||
        (rc = json_get_int(root, "rss_peak", 0, INT64_MAX, &r->rss_peak, fname, "$", e)) ||
        (rc = json_get_int(root, "outside_bytes", 0, INT64_MAX, &r->outside, fname, "$", e)))
        goto out;
    snprintf(r->backend, sizeof r->backend, "%s", backend);
    snprintf(r->device, sizeof r->device, "%s", device);
    const cJSON *gr = cJSON_GetObjectItemCaseSensitive(root, "gradients");
    if (gr && !cJSON_IsNull(gr)) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(gr, "match");
        if (!cJSON_IsObject(gr) || !cJSON_IsBool(m)) {
            rc = err_set(e, ERR_INVALID, "%s: $.gradients.match: expected true or false", fname);
            goto out;
        }
        r->grad_match = cJSON_IsTrue(m);
        if ((rc = json_get_cost(gr, "max_abs_diff", 0, &r->grad_max_diff, fname, "$.gradients", e)))
            goto out;
    }
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(root, "steps");
    if (!cJSON_IsArray(steps)) {
        rc = err_set(e, ERR_INVALID, "%s: $.steps: missing or not an array", fname);
        goto out;
    }
    r->T = cJSON_GetArraySize(steps);
    r->steps = xcalloc((size_t)r->T + 1, sizeof *r->steps);
    int t = 0;
    const cJSON *st;
    cJSON_ArrayForEach(st, steps)
    {
        char path[32];
        snprintf(path, sizeof path, "steps[%d]", t);
        if (!cJSON_IsObject(st)) {
            rc = err_set(e, ERR_INVALID, "%s: %s: expected an object", fname, path);
            goto out;
        }
        if ((rc = json_get_int(st, "simulated", 0, INT64_MAX, &r->steps[t].simulated, fname, path, e)) ||
            (rc = json_get_int(st, "measured", 0, INT64_MAX, &r->steps[t].measured, fname, path, e)) ||
            (rc = json_get_int(st, "rss", 0, INT64_MAX, &r->steps[t].rss, fname, path, e)) ||
            (rc = json_get_cost(st, "time_s", 0, &r->steps[t].time_s, fname, path, e)))
            goto out;
        t++;
    }
out:
    cJSON_Delete(root);
    if (rc)
        replay_done(r);
    return rc;
}

int replay_load(Replay *r, const char *path, Err *e)
{
    replay_init(r);
    size_t len;
    char *text = file_read_all(path, &len, e);
    if (!text)
        return e->code;
    int rc = replay_from_json(r, text, len, path, e);
    free(text);
    return rc;
}
