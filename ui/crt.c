/* crt.c — owns the terminal (htop's CRT): initscr/newterm, colours with a
 * monochrome fallback, mouse with drag reports, signals that only flag,
 * fatal signals and atexit that restore the screen, stderr parked in a
 * temporary file and replayed after endwin. */
#include "ui/crt.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int crt_quit_flag;
static int active, ascii_mode, colors;
static SCREEN *screen;
static FILE *null_out;
static FILE *held_err;
static int saved_err = -1;

static const struct { short fg, bg; attr_t mono; } roles[CRT_COUNT] = {
    [CRT_CURVE] = {COLOR_CYAN, -1, A_NORMAL},
    [CRT_BASE] = {COLOR_BLUE, -1, A_DIM},
    [CRT_BUDGET] = {COLOR_YELLOW, -1, A_BOLD},
    [CRT_PEAK] = {COLOR_RED, -1, A_BOLD},
    [CRT_BAR] = {COLOR_BLACK, COLOR_CYAN, A_REVERSE},
    [CRT_ERROR] = {COLOR_RED, -1, A_BOLD},
    [CRT_TAB] = {COLOR_BLACK, COLOR_YELLOW, A_REVERSE},
    [CRT_MEASURED] = {COLOR_MAGENTA, -1, A_BOLD},
    [CRT_NODE] = {COLOR_GREEN, -1, A_NORMAL},
    [CRT_NODE_RECOMP] = {COLOR_YELLOW, -1, A_BOLD},
    [CRT_OVER] = {COLOR_RED, -1, A_BOLD},
    [CRT_RERUN] = {COLOR_YELLOW, -1, A_BOLD},
    [CRT_SELECT] = {COLOR_MAGENTA, -1, A_UNDERLINE},
    [CRT_ALIVE] = {COLOR_CYAN, -1, A_BOLD},
    [CRT_EDGE] = {COLOR_BLUE, -1, A_NORMAL},
};

static void on_quit(int sig)
{
    (void)sig;
    crt_quit_flag = 1;
}

static void on_fatal(int sig)
{
    crt_done();
    signal(sig, SIG_DFL);
    raise(sig);
}

int crt_init(int ascii)
{
    setlocale(LC_ALL, "");
    ascii_mode = ascii;
    if (getenv("REMAT_NO_DISPLAY")) {
        null_out = fopen("/dev/null", "w");
        screen = null_out ? newterm(getenv("TERM") ? NULL : "xterm", null_out, stdin) : NULL;
        if (!screen)
            return -1;
        set_term(screen);
    } else {
        /* newterm rather than initscr, so crt_done can delscreen it */
        screen = newterm(NULL, stdout, stdin);
        if (!screen)
            return -1;
        set_term(screen);
    }
    active = 1;
    atexit(crt_done);
    signal(SIGINT, on_quit);
    signal(SIGTERM, on_quit);
    signal(SIGSEGV, on_fatal);
    signal(SIGABRT, on_fatal);
    signal(SIGBUS, on_fatal);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_CLICKED | REPORT_MOUSE_POSITION, NULL);
    mouseinterval(0);
    if (!null_out) {
        fputs("\033[?1002h", stdout);   /* report drags with the button down */
        fflush(stdout);
    }
    colors = has_colors() && !getenv("NO_COLOR");
    if (colors) {
        start_color();
        use_default_colors();
        for (int r = 1; r < CRT_COUNT; r++)
            init_pair((short)r, roles[r].fg, roles[r].bg);
    }
    /* library chatter must not scribble over the screen: park stderr */
    held_err = tmpfile();
    if (held_err) {
        fflush(stderr);
        saved_err = dup(STDERR_FILENO);
        dup2(fileno(held_err), STDERR_FILENO);
    }
    return 0;
}

void crt_done(void)
{
    if (!active)
        return;
    active = 0;
    if (!null_out) {
        fputs("\033[?1002l", stdout);
        fflush(stdout);
    }
    endwin();
    if (screen) {
        delscreen(screen);
        screen = NULL;
    }
    if (null_out) {
        fclose(null_out);
        null_out = NULL;
    }
    if (held_err && saved_err >= 0) {
        fflush(stderr);
        dup2(saved_err, STDERR_FILENO);
        close(saved_err);
        saved_err = -1;
        rewind(held_err);
        char buf[512];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, held_err)) > 0)
            fwrite(buf, 1, n, stderr);
        fclose(held_err);
        held_err = NULL;
    }
}

attr_t crt_attr(int role)
{
    if (role <= 0 || role >= CRT_COUNT)
        return A_NORMAL;
    int bold = role == CRT_PEAK || role == CRT_ERROR || role == CRT_OVER || role == CRT_ALIVE ||
               role == CRT_SELECT;
    return colors ? (attr_t)COLOR_PAIR(role) | (bold ? A_BOLD : 0) : roles[role].mono;
}

int crt_ascii(void)
{
    return ascii_mode;
}

void crt_set_ascii(int on)
{
    ascii_mode = on;
}
