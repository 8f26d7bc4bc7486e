/* bg.c — the one-shot task runner behind the export, replay and layout
 * work (see bg.h): a thread per task and a self-pipe wake-up. */
#include "ui/bg.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "src/base/clock.h"

static void *trampoline(void *p)
{
    Bg *b = p;
    b->fn(b->arg);
    atomic_store(&b->finished, 1);
    char c = 1;
    ssize_t w = write(b->fd[1], &c, 1);
    (void)w;
    return NULL;
}

int bg_init(Bg *b)
{
    memset(b, 0, sizeof *b);
    if (pipe(b->fd) < 0) {
        b->fd[0] = b->fd[1] = -1;
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        fcntl(b->fd[i], F_SETFL, fcntl(b->fd[i], F_GETFL) | O_NONBLOCK);
        fcntl(b->fd[i], F_SETFD, FD_CLOEXEC);
    }
    progress_init(&b->prog);
    return 0;
}

int bg_start(Bg *b, void *(*fn)(void *), void *arg)
{
    if (b->started || b->fd[0] < 0)
        return -1;
    b->fn = fn;
    b->arg = arg;
    progress_init(&b->prog);
    atomic_store(&b->at, 0);
    atomic_store(&b->finished, 0);
    b->t0 = clock_now();
    if (pthread_create(&b->th, NULL, trampoline, b) != 0)
        return -1;
    b->started = 1;
    return 0;
}

int bg_done(const Bg *b)
{
    return b->started && atomic_load(&b->finished);
}

int bg_reap(Bg *b)
{
    char buf[16];
    while (b->fd[0] >= 0 && read(b->fd[0], buf, sizeof buf) > 0)
        ;
    if (!bg_done(b))
        return 0;
    pthread_join(b->th, NULL);
    b->started = 0;
    return 1;
}

void bg_free(Bg *b)
{
    if (b->started) {
        atomic_store(&b->prog.cancel, 1);
        pthread_join(b->th, NULL);
        b->started = 0;
    }
    for (int i = 0; i < 2; i++)
        if (b->fd[i] >= 0)
            close(b->fd[i]);
    b->fd[0] = b->fd[1] = -1;
}

void bg_abandon(Bg *b)
{
    if (b->started) {
        atomic_store(&b->prog.cancel, 1);
        pthread_detach(b->th);
        b->started = 0;
    }
}
