/* job.c — the solver worker: a pthread, a mutex/condvar pair for requests,
 * a one-slot mailbox for the newest foreground answer, a queue of
 * background tasks and of their answers, a pool of prepared Solvers, and a
 * self-pipe to wake poll(). */
#include "src/session/job.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/xalloc.h"

/* prepared Solvers kept at once; the least recently used goes first */
#define POOL_MAX 12

/* A task with its own copy of the options. */
typedef struct Task {
    JobKind kind;
    const SolverClass *cls;
    SolverOpts opts;
    char *key;
    int64_t budget;
} Task;

typedef struct Pooled {
    const SolverClass *cls;
    char *key;
    Solver *s;          /* NULL when the class refused the graph */
    int rc;
    Err err;
    Plan prev;          /* the last plan, for resolve */
    unsigned stamp;
} Pooled;

struct Job {
    const Graph *g;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv, exit_cv;
    int pipe_rd, pipe_wr;
    /* guarded by mu */
    int quit, exited;
    int fg_pending;
    Task fg;
    unsigned fg_gen;
    Task *bg;
    int n_bg, cap_bg;
    int running, running_bg, requeue;
    const Task *cur;        /* the running task (the worker's), for comparisons */
    int have_fg;
    JobResult fg_result;
    JobResult *done;        /* background answers, oldest first */
    int n_done, cap_done;
    /* shared with the solver */
    Progress prog;
    /* worker only */
    Pooled pool[POOL_MAX];
    int n_pool;
    unsigned stamp;
};

/* jobs whose worker was still running at exit; kept reachable so leak
 * checkers do not count them */
static Job *abandoned[4];

static int by_key(const void *a, const void *b)
{
    return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

char *job_opts_key(const SolverOpts *o)
{
    int n = o ? o->n : 0;
    if (n == 0)
        return xstrdup("");
    char *const *k[SOLVER_OPTS_MAX];
    size_t len = 1;
    for (int i = 0; i < n; i++) {
        k[i] = &o->key[i];
        len += strlen(o->key[i]) + strlen(o->val[i]) + 2;
    }
    qsort(k, (size_t)n, sizeof *k, by_key);
    char *s = xmalloc(len), *p = s;
    for (int i = 0; i < n; i++) {
        int at = (int)(k[i] - o->key);
        size_t kl = strlen(o->key[at]), vl = strlen(o->val[at]);
        if (i)
            *p++ = ';';
        memcpy(p, o->key[at], kl);
        p += kl;
        *p++ = '=';
        memcpy(p, o->val[at], vl);
        p += vl;
    }
    *p = '\0';
    return s;
}

static void opts_copy(SolverOpts *dst, const SolverOpts *src)
{
    solver_opts_init(dst);
    for (int i = 0; src && i < src->n; i++) {
        dst->key[i] = xstrdup(src->key[i]);
        dst->val[i] = xstrdup(src->val[i]);
        dst->n++;
    }
}

static void task_set(Task *t, const JobTask *jt)
{
    t->kind = jt->kind;
    t->cls = jt->cls;
    t->budget = jt->budget;
    opts_copy(&t->opts, jt->opts);
    t->key = job_opts_key(jt->opts);
}

static void task_done(Task *t)
{
    solver_opts_done(&t->opts);
    free(t->key);
    t->key = NULL;
}

static int task_same(const Task *a, const Task *b)
{
    return a->kind == b->kind && a->cls == b->cls && a->budget == b->budget && !strcmp(a->key, b->key);
}

void job_result_done(JobResult *r)
{
    plan_done(&r->plan);
    sim_done(&r->sim);
    overlay_done(&r->ov);
    fit_result_done(&r->fit);
    free(r->opts_key);
    r->opts_key = NULL;
}

static void notify(Job *j)
{
    char b = 1;
    ssize_t w;
    do
        w = write(j->pipe_wr, &b, 1);
    while (w < 0 && errno == EINTR);
}

/* ---- the pool of prepared Solvers (worker thread only) -------------------- */

static void pooled_done(Pooled *pe)
{
    solver_free(pe->s);
    plan_done(&pe->prev);
    free(pe->key);
    memset(pe, 0, sizeof *pe);
}

/* The Solver for (cls, key), prepared now when it is not in the pool. A
 * cancelled prepare is not kept: the next request prepares again. */
static Pooled *pool_get(Job *j, const Task *t)
{
    for (int i = 0; i < j->n_pool; i++)
        if (j->pool[i].cls == t->cls && !strcmp(j->pool[i].key, t->key)) {
            j->pool[i].stamp = ++j->stamp;
            return &j->pool[i];
        }
    Pooled *pe;
    if (j->n_pool < POOL_MAX) {
        pe = &j->pool[j->n_pool++];
    } else {
        pe = &j->pool[0];
        for (int i = 1; i < j->n_pool; i++)
            if (j->pool[i].stamp < pe->stamp)
                pe = &j->pool[i];
        pooled_done(pe);
    }
    pe->cls = t->cls;
    pe->key = xstrdup(t->key);
    pe->stamp = ++j->stamp;
    plan_init(&pe->prev);
    err_clear(&pe->err);
    pe->s = solver_new_cancellable(t->cls, j->g, &t->opts, &j->prog, &pe->err);
    pe->rc = pe->s ? ERR_OK : (pe->err.code ? pe->err.code : ERR_INVALID);
    return pe;
}

static void pool_drop(Job *j, Pooled *pe)
{
    pooled_done(pe);
    *pe = j->pool[--j->n_pool];
}

/* Run one task into r (initialised here). */
static void run_task(Job *j, const Task *t, JobResult *r)
{
    double t0 = clock_now();
    memset(r, 0, sizeof *r);
    plan_init(&r->plan);
    overlay_init(&r->ov);
    fit_result_init(&r->fit);
    r->kind = t->kind;
    r->cls = t->cls;
    r->budget = t->budget;
    r->opts_key = xstrdup(t->key);
    if (t->kind == JOB_FIT) {
        r->rc = fit_batch_units(j->g, t->cls, &t->opts, t->budget, -1, fit_unit(j->g), 64, &r->fit,
                                &j->prog, &r->err);
        r->secs = clock_now() - t0;
        return;
    }
    Pooled *pe = pool_get(j, t);
    if (!pe->s) {
        r->rc = pe->rc;
        r->err = pe->err;
        if (pe->rc == ERR_CANCELLED)
            pool_drop(j, pe);
    } else {
        /* the plan comes with the simulation solver_plan made of it */
        r->rc = solver_plan_sim(pe->s, t->budget, pe->prev.T ? &pe->prev : NULL, &r->plan, &r->sim,
                                &j->prog, &r->err);
        r->has_plan = (r->rc == ERR_OK || r->rc == ERR_OVER_BUDGET) && r->plan.T > 0;
        if (r->has_plan) {
            plan_copy(&pe->prev, &r->plan);
            if (t->cls->describe)
                t->cls->describe(pe->s, &r->ov);
        }
    }
    r->secs = clock_now() - t0;
}

/* ---- the worker ------------------------------------------------------------ */

static void push_done(Job *j, JobResult *r)
{
    xgrow((void **)&j->done, &j->cap_done, j->n_done + 1, sizeof *j->done);
    j->done[j->n_done++] = *r;
}

static void bg_push_front(Job *j, Task *t)
{
    xgrow((void **)&j->bg, &j->cap_bg, j->n_bg + 1, sizeof *j->bg);
    memmove(j->bg + 1, j->bg, (size_t)j->n_bg * sizeof *j->bg);
    j->bg[0] = *t;
    j->n_bg++;
}

static void *worker(void *arg)
{
    Job *j = arg;
    pthread_mutex_lock(&j->mu);
    for (;;) {
        while (!j->fg_pending && !j->n_bg && !j->quit)
            pthread_cond_wait(&j->cv, &j->mu);
        if (j->quit)
            break;
        Task t;
        int bg = !j->fg_pending;
        unsigned gen = 0;
        if (!bg) {
            t = j->fg;
            gen = j->fg_gen;
            j->fg_pending = 0;
        } else {
            t = j->bg[0];
            memmove(j->bg, j->bg + 1, (size_t)(j->n_bg - 1) * sizeof *j->bg);
            j->n_bg--;
        }
        j->running = 1;
        j->running_bg = bg;
        j->requeue = 0;
        j->cur = &t;
        progress_init(&j->prog);
        pthread_mutex_unlock(&j->mu);

        JobResult r;
        run_task(j, &t, &r);
        r.gen = gen;
        r.background = bg;

        pthread_mutex_lock(&j->mu);
        j->running = 0;
        j->cur = NULL;
        if (bg && r.rc == ERR_CANCELLED) {
            job_result_done(&r);
            if (j->requeue && !j->quit)
                bg_push_front(j, &t);   /* pre-empted by the foreground: later */
            else
                task_done(&t);
        } else if (bg) {
            task_done(&t);
            push_done(j, &r);
            notify(j);
        } else {
            task_done(&t);
            if (gen == j->fg_gen && !j->quit) {
                if (j->have_fg)
                    job_result_done(&j->fg_result);
                j->fg_result = r;
                j->have_fg = 1;
                notify(j);
            } else {
                job_result_done(&r);    /* superseded while it ran */
            }
        }
    }
    j->exited = 1;
    pthread_cond_broadcast(&j->exit_cv);
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

Job *job_new(const Graph *g, Err *e)
{
    Job *j = xcalloc(1, sizeof *j);
    j->g = g;
    int fds[2];
    if (pipe(fds) < 0) {
        free(j);
        err_set(e, ERR_IO, "cannot create the worker pipe: %s", strerror(errno));
        return NULL;
    }
    j->pipe_rd = fds[0];
    j->pipe_wr = fds[1];
    fcntl(j->pipe_rd, F_SETFL, fcntl(j->pipe_rd, F_GETFL) | O_NONBLOCK);
    fcntl(j->pipe_rd, F_SETFD, FD_CLOEXEC);
    fcntl(j->pipe_wr, F_SETFD, FD_CLOEXEC);
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    pthread_cond_init(&j->exit_cv, NULL);
    progress_init(&j->prog);
    if (pthread_create(&j->thread, NULL, worker, j) != 0) {
        close(fds[0]);
        close(fds[1]);
        pthread_mutex_destroy(&j->mu);
        pthread_cond_destroy(&j->cv);
        pthread_cond_destroy(&j->exit_cv);
        free(j);
        err_set(e, ERR_IO, "cannot start the worker thread");
        return NULL;
    }
    return j;
}

static void bg_clear(Job *j)
{
    for (int i = 0; i < j->n_bg; i++)
        task_done(&j->bg[i]);
    j->n_bg = 0;
}

int job_free(Job *j, double wait_s)
{
    if (!j)
        return 1;
    pthread_mutex_lock(&j->mu);
    j->quit = 1;
    atomic_store(&j->prog.cancel, 1);
    pthread_cond_signal(&j->cv);
    if (wait_s >= 0) {
        double until = clock_now() + wait_s;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        double at = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + wait_s;
        ts.tv_sec = (time_t)at;
        ts.tv_nsec = (long)((at - (double)ts.tv_sec) * 1e9);
        while (!j->exited && clock_now() < until)
            if (pthread_cond_timedwait(&j->exit_cv, &j->mu, &ts) == ETIMEDOUT)
                break;
        if (!j->exited) {
            pthread_mutex_unlock(&j->mu);
            pthread_detach(j->thread);
            for (size_t i = 0; i < sizeof abandoned / sizeof *abandoned; i++)
                if (!abandoned[i]) {
                    abandoned[i] = j;
                    break;
                }
            return 0;
        }
    }
    pthread_mutex_unlock(&j->mu);
    pthread_join(j->thread, NULL);
    if (j->have_fg)
        job_result_done(&j->fg_result);
    for (int i = 0; i < j->n_done; i++)
        job_result_done(&j->done[i]);
    free(j->done);
    if (j->fg_pending)
        task_done(&j->fg);
    bg_clear(j);
    free(j->bg);
    for (int i = 0; i < j->n_pool; i++)
        pooled_done(&j->pool[i]);
    close(j->pipe_rd);
    close(j->pipe_wr);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    pthread_cond_destroy(&j->exit_cv);
    free(j);
    return 1;
}

int job_fd(const Job *j)
{
    return j->pipe_rd;
}

void job_request(Job *j, const JobTask *t, unsigned gen)
{
    pthread_mutex_lock(&j->mu);
    if (j->fg_pending)
        task_done(&j->fg);
    task_set(&j->fg, t);
    j->fg_gen = gen;
    j->fg_pending = 1;
    if (j->running) {
        atomic_store(&j->prog.cancel, 1);
        if (j->running_bg)
            j->requeue = 1;
    }
    if (j->have_fg && j->fg_result.gen != gen) {
        job_result_done(&j->fg_result);     /* an older answer nobody wants now */
        j->have_fg = 0;
    }
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

void job_drop(Job *j)
{
    pthread_mutex_lock(&j->mu);
    if (j->fg_pending) {
        task_done(&j->fg);
        j->fg_pending = 0;
    }
    j->fg_gen++;    /* whatever answer is running is now stale */
    if (j->running && !j->running_bg)
        atomic_store(&j->prog.cancel, 1);
    if (j->have_fg) {
        job_result_done(&j->fg_result);
        j->have_fg = 0;
    }
    pthread_mutex_unlock(&j->mu);
}

void job_background(Job *j, const JobTask *tasks, int n)
{
    pthread_mutex_lock(&j->mu);
    bg_clear(j);
    int keep_running = 0;
    for (int i = 0; i < n; i++) {
        Task t;
        task_set(&t, &tasks[i]);
        if (j->running && j->running_bg && j->cur && task_same(j->cur, &t)) {
            keep_running = 1;
            task_done(&t);
            continue;
        }
        xgrow((void **)&j->bg, &j->cap_bg, j->n_bg + 1, sizeof *j->bg);
        j->bg[j->n_bg++] = t;
    }
    if (j->running && j->running_bg && !keep_running) {
        atomic_store(&j->prog.cancel, 1);
        j->requeue = 0;
    }
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

int job_take(Job *j, JobResult *out)
{
    char buf[64];
    while (read(j->pipe_rd, buf, sizeof buf) > 0)
        ;
    pthread_mutex_lock(&j->mu);
    int got = 0;
    if (j->have_fg) {
        *out = j->fg_result;
        j->have_fg = 0;
        got = 1;
    } else if (j->n_done) {
        *out = j->done[0];
        memmove(j->done, j->done + 1, (size_t)(j->n_done - 1) * sizeof *j->done);
        j->n_done--;
        got = 1;
    }
    pthread_mutex_unlock(&j->mu);
    return got;
}

int job_busy(Job *j, double *progress)
{
    pthread_mutex_lock(&j->mu);
    int busy = j->fg_pending || (j->running && !j->running_bg);
    pthread_mutex_unlock(&j->mu);
    if (progress)
        *progress = atomic_load(&j->prog.done);
    return busy;
}

void job_status(Job *j, JobStatus *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&j->mu);
    st->fg_busy = j->fg_pending || (j->running && !j->running_bg);
    st->bg_left = j->n_bg + (j->running && j->running_bg);
    st->running = j->running;
    st->running_bg = j->running_bg;
    if (j->cur) {
        st->kind = j->cur->kind;
        st->cls = j->cur->cls;
        st->budget = j->cur->budget;
    }
    pthread_mutex_unlock(&j->mu);
    st->progress = atomic_load(&j->prog.done);
}
