/* bg.h — one-shot background tasks for the explorer (export, replay,
 * graph layout): a thread runs fn(arg) while the UI keeps drawing; completion is
 * one byte on a pipe the main loop poll()s, so curses stays on the main
 * thread. The task's results live in arg and are read only after bg_join. */
#ifndef REMAT_BG_H
#define REMAT_BG_H

#include <pthread.h>
#include <stdatomic.h>

#include "src/plan/solver.h"

typedef struct Bg {
    pthread_t th;
    int started;            /* a thread exists and has not been joined */
    atomic_int finished;
    int fd[2];
    Progress prog;          /* cancel flag for the task */
    atomic_int at;          /* task-defined progress counter */
    double t0;
    void *(*fn)(void *);
    void *arg;
} Bg;

/* Set up the pipe; 0 or -1. */
int bg_init(Bg *b);
/* Start fn(arg) (b must be idle). 0 or -1 when no thread could start. */
int bg_start(Bg *b, void *(*fn)(void *), void *arg);
/* 1 when a started task has finished and can be joined. */
int bg_done(const Bg *b);
/* Drain the wake-up pipe, join a finished task; 1 when one was joined. */
int bg_reap(Bg *b);
/* Cancel (sets prog.cancel) and join whatever runs; then close the pipe. */
void bg_free(Bg *b);
/* Leave a task that cannot be stopped to finish on its own (the process
 * is exiting): detach its thread; its pipe stays open for it. */
void bg_abandon(Bg *b);

#endif
