/* replay_cuda.cu — the CUDA replay backend, a separate program (remat-cuda)
 * so that `remat` itself runs on machines without CUDA.
 *
 *   remat-cuda GRAPH PLAN --scale F | --fit PCT OUT.json
 *
 * Buffers come from cudaMalloc; one kernel per step reads every input and
 * writes the output with work proportional to the node's cost; values are
 * freed by the spec's semantics (cudaFree). Per step it records the live
 * bytes, the device's used memory over the start (cudaMemGetInfo: page
 * rounding and the driver's own) and CUDA-event time. It
 * never asks for more than the device has free: the scaled peak must fit
 * in 90 % of the free memory. Exit 4 with "no CUDA device" without a GPU.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "src/base/fileio.h"
#include "src/graph/graph_io.h"
#include "src/plan/plan.h"
#include "src/replay/replay.h"
#include "src/plan/sim.h"
#include "src/base/xalloc.h"
}

#define MAX_IN 16

struct Operands {
    const unsigned char *in[MAX_IN];
    unsigned long long in_n[MAX_IN];
    int n_in;
};

/* Each thread strides over the inputs (reads) and the output (writes),
 * then spins `work` iterations: cost becomes time. */
__global__ void step_kernel(Operands ops, unsigned char *out, unsigned long long out_n,
                            long long work)
{
    unsigned long long tid = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned acc = 0;
    for (int k = 0; k < ops.n_in; k++)
        for (unsigned long long i = tid * 256; i < ops.in_n[k]; i += stride * 256)
            acc += ops.in[k][i];
    float x = (float)acc;
    for (long long i = 0; i < work; i++)
        x = x * 1.0000001f + 1e-7f;
    for (unsigned long long i = tid * 256; i < out_n; i += stride * 256)
        out[i] = (unsigned char)x;
}

static int fail(const char *msg, cudaError_t err)
{
    fprintf(stderr, "remat-cuda: %s: %s\n", msg, cudaGetErrorString(err));
    return 1;
}

#define CK(call, what)                      \
    do {                                    \
        cudaError_t e_ = (call);            \
        if (e_ != cudaSuccess)              \
            return fail(what, e_);          \
    } while (0)

/* An allocation of step t failed: one line naming the step, its node and
 * the device's state (exit 3, as for a scale that cannot fit). */
static int step_oom(int t, const Node *nd, size_t want, size_t live, double scale, cudaError_t err)
{
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    fprintf(stderr,
            "remat: replay: step %d (node '%s'): %s allocating %zu bytes, with %zu live and %zu free on "
            "the device (scale %g); a lower --fit leaves more room\n",
            t, nd->id, cudaGetErrorString(err), want, live, free_b, scale);
    return 3;
}

/* The replay's scale: --scale F as given, --fit PCT so that the scaled
 * peak is PCT % of the device's free memory; checked against the graph's
 * sizes and the free memory. Returns 0 or the exit status (message said). */
static int choose_scale(const char *mode, const char *arg, const Graph *g, int64_t peak, size_t free_b,
                        double *scale)
{
    Err e;
    err_clear(&e);
    *scale = atof(arg);
    if (!strcmp(mode, "--fit")) {
        double pct = atof(arg);
        if (!(pct > 0 && pct <= 90)) {
            fprintf(stderr, "remat: replay: --fit needs a percentage in (0, 90]\n");
            return 2;
        }
        *scale = peak > 0 ? pct / 100.0 * (double)free_b / (double)peak : 1;
    }
    if (replay_scale_check(g, peak, *scale, &e)) {
        fprintf(stderr, "remat: replay: %s\n", e.msg);
        return 2;
    }
    if (!(*scale > 0) || (double)peak * *scale > 0.9 * (double)free_b) {
        fprintf(stderr, "remat: replay: scaled peak %.0f bytes would not fit in 90%% of the %zu free bytes\n",
                (double)peak * *scale, free_b);
        return 3;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 6 || (strcmp(argv[3], "--scale") && strcmp(argv[3], "--fit"))) {
        fprintf(stderr, "usage: remat-cuda GRAPH PLAN --scale F|--fit PCT OUT.json\n");
        return 2;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "remat: replay: no CUDA device\n");
        return 4;
    }
    Err e;
    err_clear(&e);
    Graph *g = graph_load(argv[1], &e);
    if (!g) {
        fprintf(stderr, "remat: %s\n", e.msg);
        return 1;
    }
    Plan plan;
    plan_init(&plan);
    Sim s;
    if (plan_load(&plan, g, argv[2], &e) || sim_run(g, plan.steps, plan.T, &s, &e)) {
        fprintf(stderr, "remat: %s\n", e.msg);
        return 1;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0), "device properties");
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    double scale;
    int src = choose_scale(argv[3], argv[4], g, s.peak, free_b, &scale);
    if (src)
        return src;

    /* plain cudaMalloc / cudaFree: each buffer its own mapping, given back
     * when freed. A stream-ordered pool (cudaMallocFromPoolAsync) was used
     * before: on an 8K-node LLaMA-shaped graph it refused a 4.4 GB buffer
     * with 77 GB reserved and 72 GB free on the device. The device's used
     * memory over the start (cudaMemGetInfo) is the resident figure. */
    size_t used0 = total_b - free_b, live = 0;
    cudaStream_t st;
    CK(cudaStreamCreate(&st), "stream");
    cudaEvent_t ev0, ev1;
    cudaEventCreate(&ev0);
    cudaEventCreate(&ev1);

    double total_cost = 0;
    for (int t = 0; t < plan.T; t++)
        total_cost += g->nodes[plan.steps[t]].cost;
    double per_cost = total_cost > 0 ? 2e7 / total_cost : 0; /* ~2e7 spins in all */

    unsigned char **val = (unsigned char **)xcalloc((size_t)g->n, sizeof *val);
    size_t *vn = (size_t *)xcalloc((size_t)g->n, sizeof *vn);
    int *lastp = (int *)xcalloc((size_t)g->n, sizeof *lastp);
    Replay r;
    replay_init(&r);
    snprintf(r.backend, sizeof r.backend, "cuda");
    snprintf(r.device, sizeof r.device, "%s (%zu MiB free of %zu)", prop.name, free_b >> 20, total_b >> 20);
    r.scale = scale;
    r.T = plan.T;
    r.steps = (ReplayStep *)xcalloc((size_t)plan.T + 1, sizeof *r.steps);
    r.simulated_peak = s.peak;
#define SCALED(x) ((size_t)llround((double)(x) * scale))
    for (int v = 0; v < g->n; v++)
        if (g->nodes[v].phase == PHASE_INPUT && (vn[v] = SCALED(g->nodes[v].size))) {
            CK(cudaMalloc((void **)&val[v], vn[v]), "input allocation");
            live += vn[v];
        }
    for (int t = 0; t < plan.T; t++) {
        int v = plan.steps[t];
        const Node *nd = &g->nodes[v];
        unsigned char *out = NULL, *ws = NULL;
        cudaError_t err;
        size_t on = SCALED(nd->size), wn = SCALED(nd->workspace);
        if (on && (err = cudaMalloc((void **)&out, on)) != cudaSuccess)
            return step_oom(t, nd, on, live, scale, err);
        if (wn && (err = cudaMalloc((void **)&ws, wn)) != cudaSuccess)
            return step_oom(t, nd, wn, live + on, scale, err);
        live += on + wn;
        Operands ops;
        memset(&ops, 0, sizeof ops);
        for (int k = g->in_off[v]; k < g->in_off[v + 1] && ops.n_in < MAX_IN; k++) {
            int u = g->in_idx[k];
            if (!val[u])
                continue;
            ops.in[ops.n_in] = val[u];
            ops.in_n[ops.n_in++] = vn[u];
        }
        cudaEventRecord(ev0, st);
        step_kernel<<<prop.multiProcessorCount, 256, 0, st>>>(ops, out, on, (long long)(nd->cost * per_cost));
        cudaEventRecord(ev1, st);
        CK(cudaStreamSynchronize(st), "step");
        size_t free_now = free_b;
        cudaMemGetInfo(&free_now, &total_b);
        size_t used = live, reserved = total_b - free_now > used0 ? total_b - free_now - used0 : 0;
        float ms = 0;
        cudaEventElapsedTime(&ms, ev0, ev1);
        ReplayStep *rs = &r.steps[t];
        rs->simulated = s.mem[t];
        rs->measured = (int64_t)llround((double)used / scale);
        rs->rss = (int64_t)llround((double)reserved / scale);
        rs->time_s = ms / 1e3;
        if (rs->measured > r.measured_peak)
            r.measured_peak = rs->measured;
        if (rs->rss > r.rss_peak)
            r.rss_peak = rs->rss;
        if (ws)
            cudaFree(ws);
        live -= wn;
        if (val[v]) {
            cudaFree(val[v]);
            live -= vn[v];
        }
        val[v] = out;
        vn[v] = on;
        lastp[v] = t;
        if (s.held_until[t] == t && val[v]) {
            cudaFree(val[v]);
            live -= vn[v];
            val[v] = NULL;
        }
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int u = g->in_idx[k];
            if (g->nodes[u].phase != PHASE_INPUT && val[u] && s.held_until[lastp[u]] == t) {
                cudaFree(val[u]);
                live -= vn[u];
                val[u] = NULL;
            }
        }
        r.seconds += rs->time_s;
    }
#undef SCALED
    for (int v = 0; v < g->n; v++)
        if (val[v])
            cudaFree(val[v]);
    CK(cudaStreamSynchronize(st), "final free");
    r.correlation = replay_cost_correlation(&r, g, &plan);
    char *json = replay_to_json(&r, g, &plan);
    int rc = file_write_all(argv[5], json, strlen(json), &e);
    if (rc)
        fprintf(stderr, "remat: %s\n", e.msg);
    free(json);
    free(val);
    free(vn);
    free(lastp);
    replay_done(&r);
    sim_done(&s);
    plan_done(&plan);
    graph_free(g);
    return rc ? 1 : 0;
}
