/* worker.c — the lanes of worker.h: per lane a thread, a queue (front
 * tasks first) and the running task's Progress; one mutex, one list of
 * finished tasks and one self-pipe for the whole worker. */
#include "src/session/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/xalloc.h"

typedef struct Task {
    TaskId id;
    int front;
    const TaskOps *ops;
    void *arg;
} Task;

typedef struct Lane {
    Worker *w;
    int index;
    pthread_t thread;
    int started, exited;
    Task *q;                /* queued, front tasks first */
    int n_q, cap_q;
    Task cur;               /* cur.id 0: idle */
    int requeue;            /* cur was pre-empted: run it again later */
    double since;
    Progress prog;
} Lane;

struct Worker {
    Graph *g;
    Service *service;         /* LANE_SOLVE's */
    pthread_mutex_t mu;
    pthread_cond_t cv, exit_cv;
    int pipe_rd, pipe_wr;
    int quit;
    TaskId next_id;
    Lane lanes[LANE_COUNT];
    TaskDone *done;         /* finished, oldest first */
    int n_done, cap_done;
};

/* workers left running at exit, with their graphs and tasks; kept
 * reachable so leak checkers do not count them */
static Worker *abandoned[4];

static void wake(Worker *w)
{
    char b = 1;
    ssize_t n;
    do
        n = write(w->pipe_wr, &b, 1);
    while (n < 0 && errno == EINTR);
}

/* Call with mu held. */
static void push_done(Worker *w, const Task *t, int cancelled, double secs)
{
    xgrow((void **)&w->done, &w->cap_done, w->n_done + 1, sizeof *w->done);
    w->done[w->n_done++] = (TaskDone){t->id, t->ops, t->arg, cancelled, secs};
    wake(w);
}

/* Insert t in the lane's queue: front tasks after the other front ones,
 * at_head puts it before everything of its kind. Call with mu held. */
static void enqueue(Lane *l, const Task *t, int at_head)
{
    xgrow((void **)&l->q, &l->cap_q, l->n_q + 1, sizeof *l->q);
    int at = 0;
    if (t->front)
        while (at < l->n_q && l->q[at].front && !at_head)
            at++;
    else if (at_head)
        while (at < l->n_q && l->q[at].front)
            at++;
    else
        at = l->n_q;
    memmove(l->q + at + 1, l->q + at, (size_t)(l->n_q - at) * sizeof *l->q);
    l->q[at] = *t;
    l->n_q++;
}

static void *lane_main(void *arg)
{
    Lane *l = arg;
    Worker *w = l->w;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!l->n_q && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->quit)
            break;
        l->cur = l->q[0];
        memmove(l->q, l->q + 1, (size_t)(l->n_q - 1) * sizeof *l->q);
        l->n_q--;
        l->requeue = 0;
        l->since = clock_now();
        progress_init(&l->prog);
        pthread_mutex_unlock(&w->mu);

        TaskCtx cx = {.g = w->g, .service = l->index == LANE_SOLVE ? w->service : NULL, .p = &l->prog, .w = w};
        l->cur.ops->run(l->cur.arg, &cx);

        pthread_mutex_lock(&w->mu);
        int cancelled = progress_cancelled(&l->prog);
        if (cancelled && l->requeue && !w->quit)
            enqueue(l, &l->cur, 1);     /* pre-empted: later, first of its kind */
        else
            push_done(w, &l->cur, cancelled, clock_now() - l->since);
        memset(&l->cur, 0, sizeof l->cur);
    }
    l->exited = 1;
    pthread_cond_broadcast(&w->exit_cv);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

Worker *worker_new(Graph *g, Err *e)
{
    Worker *w = xcalloc(1, sizeof *w);
    w->g = g;
    int fds[2];
    if (pipe(fds) < 0) {
        free(w);
        graph_free(g);
        err_set(e, ERR_IO, "cannot create the worker pipe: %s", strerror(errno));
        return NULL;
    }
    w->pipe_rd = fds[0];
    w->pipe_wr = fds[1];
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    pthread_cond_init(&w->exit_cv, NULL);
    w->service = service_new(g);
    for (int i = 0; i < LANE_COUNT; i++) {
        Lane *l = &w->lanes[i];
        l->w = w;
        l->index = i;
        progress_init(&l->prog);
        if (pthread_create(&l->thread, NULL, lane_main, l) != 0) {
            worker_free(w, -1);
            err_set(e, ERR_IO, "cannot start the worker's threads");
            return NULL;
        }
        l->started = 1;
    }
    return w;
}

const Graph *worker_graph(const Worker *w)
{
    return w->g;
}

int worker_free(Worker *w, double wait_s)
{
    if (!w)
        return 1;
    pthread_mutex_lock(&w->mu);
    w->quit = 1;
    for (int i = 0; i < LANE_COUNT; i++)
        atomic_store(&w->lanes[i].prog.cancel, 1);
    pthread_cond_broadcast(&w->cv);
    int all = 1;
    double until = clock_now() + (wait_s < 0 ? 0 : wait_s);
    for (int i = 0; i < LANE_COUNT; i++) {
        Lane *l = &w->lanes[i];
        while (l->started && !l->exited && (wait_s < 0 || clock_now() < until)) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 20000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&w->exit_cv, &w->mu, &ts);
        }
        all &= !l->started || l->exited;
    }
    pthread_mutex_unlock(&w->mu);
    if (!all) {
        /* a task that does not poll its flag (Graphviz, a replay): its
         * lane keeps the worker; the process is about to end */
        for (int i = 0; i < LANE_COUNT; i++)
            if (w->lanes[i].started)
                pthread_detach(w->lanes[i].thread);
        for (size_t i = 0; i < sizeof abandoned / sizeof *abandoned; i++)
            if (!abandoned[i]) {
                abandoned[i] = w;
                break;
            }
        return 0;
    }
    for (int i = 0; i < LANE_COUNT; i++) {
        Lane *l = &w->lanes[i];
        if (l->started)
            pthread_join(l->thread, NULL);
        for (int k = 0; k < l->n_q; k++)
            if (l->q[k].ops->free)
                l->q[k].ops->free(l->q[k].arg);
        free(l->q);
    }
    for (int k = 0; k < w->n_done; k++)
        if (w->done[k].ops->free)
            w->done[k].ops->free(w->done[k].arg);
    free(w->done);
    service_free(w->service);
    graph_free(w->g);
    close(w->pipe_rd);
    close(w->pipe_wr);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    pthread_cond_destroy(&w->exit_cv);
    free(w);
    return 1;
}

int worker_fd(const Worker *w)
{
    return w->pipe_rd;
}

TaskId worker_submit(Worker *w, int lane, int front, const TaskOps *ops, void *arg)
{
    pthread_mutex_lock(&w->mu);
    Task t = {++w->next_id, front, ops, arg};
    Lane *l = &w->lanes[lane];
    enqueue(l, &t, 0);
    /* the slider's task does not wait behind a compare row */
    if (front && l->cur.id && !l->cur.front) {
        l->requeue = 1;
        atomic_store(&l->prog.cancel, 1);
    }
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return t.id;
}

void worker_cancel(Worker *w, TaskId id)
{
    pthread_mutex_lock(&w->mu);
    for (int i = 0; i < LANE_COUNT; i++) {
        Lane *l = &w->lanes[i];
        if (l->cur.id == id) {
            l->requeue = 0;
            atomic_store(&l->prog.cancel, 1);
        }
        for (int k = 0; k < l->n_q; k++)
            if (l->q[k].id == id) {
                Task t = l->q[k];
                memmove(l->q + k, l->q + k + 1, (size_t)(l->n_q - k - 1) * sizeof *l->q);
                l->n_q--;
                push_done(w, &t, 1, 0);
                break;
            }
    }
    pthread_mutex_unlock(&w->mu);
}

void worker_wake(TaskCtx *cx)
{
    wake(cx->w);
}

int worker_take(Worker *w, TaskDone *out)
{
    char buf[64];
    while (read(w->pipe_rd, buf, sizeof buf) > 0)
        ;
    pthread_mutex_lock(&w->mu);
    int got = w->n_done > 0;
    if (got) {
        *out = w->done[0];
        memmove(w->done, w->done + 1, (size_t)(w->n_done - 1) * sizeof *w->done);
        w->n_done--;
    }
    pthread_mutex_unlock(&w->mu);
    return got;
}

void worker_status(Worker *w, int lane, LaneStatus *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&w->mu);
    Lane *l = &w->lanes[lane];
    st->queued = l->n_q;
    for (int k = 0; k < l->n_q; k++)
        st->queued_front += l->q[k].front;
    st->running = l->cur.id;
    st->running_front = l->cur.front;
    st->ops = l->cur.ops;
    st->arg = l->cur.arg;
    st->since = l->since;
    pthread_mutex_unlock(&w->mu);
    st->progress = atomic_load(&l->prog.done);
}
