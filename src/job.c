/* job.c — the solver worker: a pthread, a mutex/condvar pair for requests,
 * a one-slot mailbox for the newest result and a self-pipe to wake poll().
 * The worker keeps one Solver (the last class asked for) so moving the
 * budget never repeats prepare. */
#include "src/job.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/xalloc.h"

struct Job {
    const Graph *g;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int pipe_rd, pipe_wr;
    /* guarded by mu */
    int quit, pending, running;
    const SolverClass *want_cls;
    const SolverOpts *want_opts;
    int64_t want_budget;
    unsigned want_gen;
    int have_result;
    JobResult result;
    /* shared with the solver */
    Progress prog;
    /* worker only */
    Solver *solver;
    const SolverClass *solver_cls;
    Err solver_err;
    int solver_rc;
    Plan prev;
};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void result_done(JobResult *r)
{
    plan_done(&r->plan);
    overlay_done(&r->ov);
}

/* Run one request; fills r (plan/overlay initialised here). */
static void run_one(Job *j, const SolverClass *cls, const SolverOpts *opts, int64_t budget,
                    JobResult *r)
{
    double t0 = mono_s();
    plan_init(&r->plan);
    overlay_init(&r->ov);
    err_clear(&r->err);
    r->cls = cls;
    r->budget = budget;
    if (j->solver_cls != cls) {
        solver_free(j->solver);
        plan_done(&j->prev);
        plan_init(&j->prev);
        err_clear(&j->solver_err);
        j->solver = solver_new_cancellable(cls, j->g, opts, &j->prog, &j->solver_err);
        j->solver_rc = j->solver ? ERR_OK : (j->solver_err.code ? j->solver_err.code : ERR_INVALID);
        /* a prepare cancelled by a newer request or by quitting is not a
         * refusal: the next request for this class prepares again */
        j->solver_cls = j->solver_rc == ERR_CANCELLED ? NULL : cls;
    }
    if (!j->solver) {
        r->rc = j->solver_rc;
        r->err = j->solver_err;
    } else {
        r->rc = solver_plan(j->solver, budget, j->prev.T ? &j->prev : NULL, &r->plan, &j->prog,
                            &r->err);
        if ((r->rc == ERR_OK || r->rc == ERR_OVER_BUDGET) && r->plan.T > 0) {
            plan_copy(&j->prev, &r->plan);
            if (cls->describe) {
                Err de;
                err_clear(&de);
                if (cls->describe(j->solver, &r->plan, &r->ov, &de)) {
                    overlay_done(&r->ov);
                    overlay_init(&r->ov);
                }
            }
        }
    }
    r->secs = mono_s() - t0;
}

static void *worker(void *arg)
{
    Job *j = arg;
    pthread_mutex_lock(&j->mu);
    for (;;) {
        while (!j->pending && !j->quit)
            pthread_cond_wait(&j->cv, &j->mu);
        if (j->quit)
            break;
        const SolverClass *cls = j->want_cls;
        const SolverOpts *opts = j->want_opts;
        int64_t budget = j->want_budget;
        unsigned gen = j->want_gen;
        j->pending = 0;
        j->running = 1;
        progress_init(&j->prog);
        pthread_mutex_unlock(&j->mu);

        JobResult r;
        memset(&r, 0, sizeof r);
        run_one(j, cls, opts, budget, &r);
        r.gen = gen;

        pthread_mutex_lock(&j->mu);
        j->running = 0;
        if (gen == j->want_gen && !j->quit) {
            if (j->have_result)
                result_done(&j->result);
            j->result = r;
            j->have_result = 1;
            char b = 1;
            ssize_t w;
            do
                w = write(j->pipe_wr, &b, 1);
            while (w < 0 && errno == EINTR);
        } else {
            result_done(&r);    /* superseded while it ran */
        }
    }
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
    progress_init(&j->prog);
    plan_init(&j->prev);
    if (pthread_create(&j->thread, NULL, worker, j) != 0) {
        close(fds[0]);
        close(fds[1]);
        pthread_mutex_destroy(&j->mu);
        pthread_cond_destroy(&j->cv);
        plan_done(&j->prev);
        free(j);
        err_set(e, ERR_IO, "cannot start the worker thread");
        return NULL;
    }
    return j;
}

void job_free(Job *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->mu);
    j->quit = 1;
    atomic_store(&j->prog.cancel, 1);
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
    pthread_join(j->thread, NULL);
    if (j->have_result)
        result_done(&j->result);
    solver_free(j->solver);
    plan_done(&j->prev);
    close(j->pipe_rd);
    close(j->pipe_wr);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j);
}

int job_fd(const Job *j)
{
    return j->pipe_rd;
}

void job_request(Job *j, const SolverClass *cls, const SolverOpts *opts, int64_t budget,
                 unsigned gen)
{
    pthread_mutex_lock(&j->mu);
    j->want_cls = cls;
    j->want_opts = opts;
    j->want_budget = budget;
    j->want_gen = gen;
    j->pending = 1;
    if (j->running)
        atomic_store(&j->prog.cancel, 1);
    if (j->have_result && j->result.gen != gen) {
        result_done(&j->result);    /* an older answer nobody wants now */
        j->have_result = 0;
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
    int got = j->have_result;
    if (got) {
        *out = j->result;
        j->have_result = 0;
    }
    pthread_mutex_unlock(&j->mu);
    return got;
}

int job_busy(Job *j, double *progress)
{
    pthread_mutex_lock(&j->mu);
    int busy = j->pending || j->running;
    pthread_mutex_unlock(&j->mu);
    if (progress)
        *progress = atomic_load(&j->prog.done);
    return busy;
}
