/* tui.c — the explorer's main loop: poll() on the keyboard and the
 * session's one wake-up descriptor (every background task reports
 * through it); key and mouse dispatch (prompt, help, picker, the shown
 * view's own keys, then the action table); reactions turned into dirty
 * bits and into the one budget debounce (a solve starts ~50 ms after the
 * last move); and a frame that redraws only the dirty regions (tabs,
 * view, slider, status, message line), then one doupdate. */
#include "ui/tui.h"

#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/plot.h"
#include "src/base/clock.h"
#include "src/base/fileio.h"
#include "src/replay/replay.h"
#include "src/session/service.h"
#include "src/base/units.h"
#include "ui/crt.h"
#include "ui/export_ui.h"
#include "ui/keymap.h"
#include "ui/replay_ui.h"

#define DEBOUNCE_S 0.05
#define SPIN_MS 100
#define MIN_W 60
#define MIN_H 16

const ViewOps *const view_table[VIEW_COUNT] = {
    [VIEW_CURVE] = &view_curve_ops,     [VIEW_INSPECT] = &view_inspect_ops,
    [VIEW_RECOMPUTE] = &view_recompute_ops, [VIEW_STRUCTURE] = &view_structure_ops,
    [VIEW_COMPARE] = &view_compare_ops, [VIEW_GRAPH] = &view_graph_ops,
};

/* ---- helpers the views share -------------------------------------------- */

void tui_put(int y, int x, int n, const char *text)
{
    if (n <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
        return;
    if (x + n > COLS)
        n = COLS - x;
    /* n is columns: count UTF-8 characters, not bytes (box glyphs are 3) */
    int bytes = 0, cols = 0;
    while (text[bytes] && cols < n) {
        bytes++;
        while ((text[bytes] & 0xC0) == 0x80)
            bytes++;
        cols++;
    }
    mvaddnstr(y, x, text, bytes);
}

void tui_put_attr(int y, int x, int n, const char *text, unsigned long a)
{
    attron((attr_t)a);
    tui_put(y, x, n, text);
    attroff((attr_t)a);
}

void tui_say(Tui *t, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg, sizeof t->msg, fmt, ap);
    va_end(ap);
    t->msg_err = err;
    t->dirty |= DIRTY_BOTTOM;
}

int tui_clamp_scroll(int *scroll, int n, int rows)
{
    if (!scroll)
        return 0;
    if (*scroll > n - rows)
        *scroll = n - rows;
    if (*scroll < 0)
        *scroll = 0;
    return *scroll;
}

char tui_spinner(const Tui *t)
{
    static const char spin[] = "|/-\\";
    return spin[t->spin % 4];
}

/* ---- reactions --------------------------------------------------------------- */

static void react(Tui *t, Reaction r)
{
    if (r & R_BODY)
        t->dirty |= DIRTY_BODY;
    if (r & R_STATUS)
        t->dirty |= DIRTY_SLIDER | DIRTY_STATUS | DIRTY_BOTTOM;
    if (r & R_ALL)
        t->dirty |= DIRTY_ALL;
    if (r & R_SOLVE_NOW)
        t->moved_at = -1;
    else if ((r & R_SOLVE) && t->moved_at >= 0)
        t->moved_at = clock_now();  /* the debounce restarts with each move */
    if (r & R_QUIT)
        t->quit = 1;
}

/* ---- prompts ------------------------------------------------------------------- */

static Reaction prompt_commit(Tui *t)
{
    int kind = t->prompt;
    t->prompt = PROMPT_NONE;
    if (kind == PROMPT_OPTION)
        return picker_option_commit(t, t->input);
    if (!t->input[0])
        return R_STATUS;
    if (kind == PROMPT_EXPORT) {
        int rc = export_ui_start(t->exp, t->s, t->input, t->msg, sizeof t->msg);
        t->msg_err = rc < 0;
        return R_STATUS;
    }
    if (kind == PROMPT_SEARCH) {
        snprintf(t->search, sizeof t->search, "%.127s", t->input);
        t->search_gen++;
        return R_STATUS | R_BODY;
    }
    int64_t b;
    Err e;
    err_clear(&e);
    Session *s = t->s;
    if (strcmp(t->input, "min") == 0) {
        /* the tightest budget the solver reaches (remat solve --budget min) */
        session_set_tightest(s);
        t->tightest_asked = 1;
        tui_say(t, 0, "budget min: solving at the peak bound; the budget then moves to the lowest peak reached");
        return R_STATUS | R_BODY | R_SOLVE_NOW;
    }
    if (units_parse_bytes(t->input, s->base_peak, &b, &e)) {
        tui_say(t, 1, "%s", e.msg);
        return R_STATUS;
    }
    if (b < s->min_peak || b > s->base_peak) {
        char lo[32], hi[32];
        units_format_bytes(s->min_peak, lo, sizeof lo);
        units_format_bytes(s->base_peak, hi, sizeof hi);
        tui_say(t, 1, "budget clamped to the range %s (%lld) .. %s (%lld)", lo, (long long)s->min_peak, hi,
                (long long)s->base_peak);
    }
    session_set_budget(s, b);
    return R_STATUS | R_BODY | R_SOLVE_NOW;
}

static Reaction prompt_key(Tui *t, int ch)
{
    size_t n = strlen(t->input);
    if (ch == 27) {
        int kind = t->prompt;
        t->prompt = PROMPT_NONE;
        return kind == PROMPT_OPTION ? picker_option_commit(t, NULL) : R_STATUS;
    }
    if (ch == '\r' || ch == '\n' || ch == KEY_ENTER)
        return prompt_commit(t);
    if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n > 0)
        t->input[n - 1] = '\0';
    else if (ch == 21)
        t->input[0] = '\0';
    else if (ch >= 32 && ch < 127 && n + 1 < sizeof t->input) {
        t->input[n] = (char)ch;
        t->input[n + 1] = '\0';
    }
    return R_STATUS;
}

/* ---- mouse ----------------------------------------------------------------------- */

static Reaction mouse_key(Tui *t)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return R_NONE;
    int press = ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED);
    if (ev.bstate & BUTTON1_RELEASED) {
        t->dragging = 0;
        return R_NONE;
    }
    Session *s = t->s;
    int on_slider = ev.y == t->slider_y && ev.x >= t->slider_x - 1 && ev.x <= t->slider_x + t->slider_w;
    if ((press && on_slider) || (t->dragging && (ev.bstate & REPORT_MOUSE_POSITION))) {
        t->dragging = 1;
        session_set_budget(s, plot_slider_value(ev.x - t->slider_x, s->min_peak, s->base_peak, t->slider_w));
        return R_STATUS | R_BODY | R_SOLVE;
    }
    if (press && t->mode == MODE_VIEW && t->view == VIEW_CURVE && ev.x >= t->plot_x &&
        ev.x < t->plot_x + t->plot_w && ev.y >= t->plot_y && ev.y <= t->plot_y + t->plot_h) {
        int st = plot_step_of_col(ev.x - t->plot_x, t->plot_steps, t->plot_w);
        int mx = s->have ? s->sim.T - 1 : 0;
        t->cursor = st <= mx ? st : mx;
        return R_BODY | R_STATUS;
    }
    return R_NONE;
}

static Reaction handle_key(Tui *t, int ch)
{
    if (ch == KEY_MOUSE)
        return mouse_key(t);
    if (t->prompt)
        return prompt_key(t, ch);
    if (t->mode == MODE_HELP)
        return help_key(t, ch);
    if (t->mode == MODE_PICKER)
        return picker_key(t, ch);
    View *v = &t->views[t->view];
    if (v->ops->key) {
        Reaction r = v->ops->key(v, t, ch);
        if (r & R_TAKEN)
            return r;
    }
    return action_run(t, keymap_find(ch));
}

/* ---- frame ----------------------------------------------------------------------- */

static void clear_rows(int y0, int y1)
{
    for (int y = y0; y < y1; y++) {
        move(y, 0);
        clrtoeol();
    }
}

static void draw_tabs(Tui *t, int w)
{
    int x = 0;
    char tab[64];
    snprintf(tab, sizeof tab, " Remat Explorer ");
    tui_put_attr(0, x, w - x, tab, A_BOLD);
    x += (int)strlen(tab);
    for (int v = 0; v < VIEW_COUNT; v++) {
        snprintf(tab, sizeof tab, " %s ", view_table[v]->name);
        tui_put_attr(0, x, w - x, tab, v == t->view ? crt_attr(CRT_TAB) : A_NORMAL);
        x += (int)strlen(tab) + 1;
    }
}

static void draw(Tui *t)
{
    static int was_small;
    int h = LINES, w = COLS;
    if (w < MIN_W || h < MIN_H) {
        erase();
        char m[128];
        snprintf(m, sizeof m, "terminal too small (%dx%d); need at least %dx%d", w, h, MIN_W, MIN_H);
        tui_put(h / 2, 0, w, m);
        tui_put(h / 2 + 1, 0, w, "q quits");
        wnoutrefresh(stdscr);
        doupdate();
        was_small = 1;
        t->dirty = 0;
        return;
    }
    if (was_small) {
        was_small = 0;
        t->dirty = DIRTY_ALL;
    }
    if (!t->dirty)
        return;
    if (t->dirty == DIRTY_ALL)
        erase();
    if (t->dirty & DIRTY_TABS) {
        clear_rows(0, 1);
        draw_tabs(t, w);
    }
    if (t->dirty & DIRTY_BODY) {
        clear_rows(1, h - 3);
        if (t->mode == MODE_HELP) {
            help_draw(t, 1, h - 4, w);
        } else if (t->mode == MODE_PICKER) {
            picker_draw(t, 1, h - 4, w);
        } else {
            View *v = &t->views[t->view];
            v->ops->draw(v, t, 1, h - 4, w);
        }
    }
    if (t->dirty & DIRTY_SLIDER) {
        clear_rows(h - 3, h - 2);
        slider_draw(t, h - 3, w);
    }
    if (t->dirty & DIRTY_STATUS)
        status_draw(t, h - 2, w);
    if (t->dirty & DIRTY_BOTTOM) {
        clear_rows(h - 1, h);
        bottom_draw(t, h - 1, w);
    }
    wnoutrefresh(stdscr);
    doupdate();
    t->dirty = 0;
}

/* How long the screen's thread was busy at a time (a frame: taking the
 * worker's news and drawing; a key: its handler), for REMAT_FRAME_STATS:
 * the measure of "never blocks" on large graphs (docs/benchmarks.md). */
typedef struct FrameStats {
    long n, over_100ms;
    double max, sum;
} FrameStats;

static void frame_note(FrameStats *f, double secs)
{
    f->n++;
    f->sum += secs;
    if (secs > f->max)
        f->max = secs;
    f->over_100ms += secs > 0.1;
}

/* With REMAT_FRAME_STATS=FILE, one JSON line at exit: frames, the longest,
 * the mean, how many took over 100 ms. */
static void frame_report(const FrameStats *f)
{
    const char *path = getenv("REMAT_FRAME_STATS");
    if (!path || !*path)
        return;
    char line[256];
    int n = snprintf(line, sizeof line, "{\"frames\": %ld, \"max_ms\": %.2f, \"mean_ms\": %.3f, \"over_100ms\": %ld}\n",
                     f->n, 1e3 * f->max, f->n ? 1e3 * f->sum / (double)f->n : 0.0, f->over_100ms);
    Err e;
    err_clear(&e);
    if (file_write_all(path, line, (size_t)n, &e))
        fprintf(stderr, "remat: %s\n", e.msg);
}

/* --plan: the file's plan becomes the shown plan (through the cache, so
 * the usual install path draws it); --replay: its measurement is kept for
 * the overlay. Messages on stderr; -1 on failure. */
static int load_files(Tui *t, const char *plan_path, const char *replay_path)
{
    Session *s = t->s;
    Err e;
    err_clear(&e);
    Plan p;
    plan_init(&p);
    int have_plan = 0;
    if (plan_path) {
        if (plan_load(&p, s->g, plan_path, &e) || plan_evaluate(&p, s->g, &e)) {
            int named = !strncmp(e.msg, plan_path, strlen(plan_path));
            fprintf(stderr, "remat: %s%s%s\n", named ? "" : plan_path, named ? "" : ": ", e.msg);
            plan_done(&p);
            return -1;
        }
        const SolverClass *cls = p.solver ? solver_find(p.solver) : NULL;
        if (cls)
            session_set_solver(s, cls);
        session_set_budget(s, p.budget != PLAN_NO_BUDGET ? p.budget : p.peak);
        session_cache_put(s, s->cls, s->budget, p.peak > s->budget ? ERR_OVER_BUDGET : ERR_OK, NULL, &p, 0);
        have_plan = 1;
    }
    if (replay_path) {
        Replay r;
        if (replay_load(&r, replay_path, &e)) {
            fprintf(stderr, "remat: %s\n", e.msg);
            plan_done(&p);
            return -1;
        }
        if (have_plan && r.T != p.T) {
            fprintf(stderr, "remat: %s: %d steps, but the plan %s has %d\n", replay_path, r.T, plan_path, p.T);
            replay_done(&r);
            plan_done(&p);
            return -1;
        }
        if (t->rep)
            replay_ui_set(t->rep, &r, have_plan ? &p : NULL);
        replay_done(&r);
    }
    plan_done(&p);
    return 0;
}

static void views_init(Tui *t)
{
    for (int i = 0; i < VIEW_COUNT; i++) {
        View *v = &t->views[i];
        v->ops = view_table[i];
        v->st = v->ops->state_size ? calloc(1, v->ops->state_size) : NULL;
        if (v->ops->init)
            v->ops->init(v, t);
    }
}

static void views_free(Tui *t)
{
    for (int i = 0; i < VIEW_COUNT; i++) {
        View *v = &t->views[i];
        if (v->ops && v->ops->free)
            v->ops->free(v);
        free(v->st);
    }
}

/* The session first: its worker holds the tasks the views, the export
 * and the replay started, and calls none of them back once freed. Returns
 * 0 when a task was left running (see session_free). */
static int teardown(Tui *t)
{
    int stopped = session_free(t->s);
    views_free(t);
    export_ui_free(t->exp);
    replay_ui_free(t->rep);
    return stopped;
}

/* Quitting while an export renders: Graphviz cannot be stopped half-way,
 * and exit's destructors (fontconfig's, pango's, X11's) would free what the
 * render is reading. End here instead: the export's temporary file is
 * removed (its target keeps what it had) and no destructor runs. */
static _Noreturn void quit_under_task(int status)
{
    file_tx_discard_open();
    fflush(stdout);
    fflush(stderr);
    _exit(status);
}

/* A new answer for the want is installed: redraw, and let a refusal (a
 * solver that cannot honour pin/force, say) speak over the message line. */
static Reaction answer_shown(Tui *t)
{
    const Session *s = t->s;
    if (s->rc && s->rc != ERR_OVER_BUDGET && s->rc != ERR_CANCELLED)
        tui_say(t, 1, "%s", s->err.msg);
    else if (t->tightest_asked && !s->tightest && s->shown == SHOWN_FINAL) {
        /* what `b min` reached, and whether the peak bound proves it */
        char say[256];
        service_tightest_say(s->have_budget, s->peak_bound, s->base_peak, say, sizeof say);
        tui_say(t, 0, "%s", say);
        t->tightest_asked = 0;
    }
    return R_BODY | R_STATUS;
}

/* Collect what finished in the background; returns what to redraw. */
static Reaction collect(Tui *t, int *was_have)
{
    Session *s = t->s;
    Reaction r = R_NONE;
    int what = session_poll(s);
    if (what & SESSION_HAVE)
        r |= answer_shown(t);
    if (what & SESSION_MORE)
        r |= R_STATUS | (t->view == VIEW_COMPARE || t->mode == MODE_PICKER ? R_BODY : 0);
    if (what & SESSION_TASK)
        r |= R_STATUS | R_BODY;     /* an export, replay or layout finished */
    if (s->have && !*was_have) {
        t->cursor = s->sim.peak_step > 0 ? s->sim.peak_step : 0;
        *was_have = 1;
    }
    if (s->have && t->cursor > s->sim.T - 1)
        t->cursor = s->sim.T - 1;
    if (t->sel_group >= (s->have ? s->ov.n : 0))
        t->sel_group = -1;
    char m[sizeof t->msg];
    int rr = replay_ui_take(t->rep, m, sizeof m);
    if (rr) {
        memcpy(t->msg, m, sizeof t->msg);
        t->msg_err = rr < 0;
        r |= R_STATUS | R_BODY;
    }
    rr = export_ui_take(t->exp, m, sizeof m);
    if (rr) {
        memcpy(t->msg, m, sizeof t->msg);
        t->msg_err = rr < 0;
        r |= R_STATUS;
    }
    for (int i = 0; i < VIEW_COUNT; i++) {
        View *v = &t->views[i];
        if (v->ops->tick) {
            Reaction vr = v->ops->tick(v, t, i == t->view && t->mode == MODE_VIEW);
            r |= i == t->view ? vr : vr & ~(unsigned)R_BODY;
        }
    }
    return r;
}

/* Something moves on screen: the solver, background work, a view's task. */
static int anything_busy(Tui *t, int *body)
{
    SessionStatus st;
    session_status(t->s, &st);
    View *v = &t->views[t->view];
    *body = t->mode == MODE_VIEW && v->ops->busy && v->ops->busy(v, t);
    return st.solving || st.bg_left || st.io_left || *body || t->moved_at != 0;
}

int tui_run(Graph *g, const SolverClass *cls, const SolverOpts *opts, int64_t budget, int ascii,
            const char *plan_path, const char *replay_path, int cuda)
{
    Err e;
    err_clear(&e);
    Session *s = session_new(g, cls, opts, &e);
    if (!s) {
        fprintf(stderr, "remat: %s\n", e.msg);
        return 1;
    }
    if (budget == PLAN_TIGHTEST)
        session_set_tightest(s);
    else if (budget != PLAN_NO_BUDGET)
        session_set_budget(s, budget);
    Tui t;
    memset(&t, 0, sizeof t);
    t.s = s;
    t.tightest_asked = budget == PLAN_TIGHTEST;
    t.sel_group = t.sel_node = -1;
    t.rep = replay_ui_new();
    t.exp = export_ui_new();
    /* what a view asks for, the session's worker runs */
    views_init(&t);
    if (!cuda && g->recipe && t.rep)
        replay_ui_use_torch(t.rep, t.msg, sizeof t.msg);   /* msg says why not */
    if ((cuda && t.rep && replay_ui_use_cuda(t.rep, t.msg, sizeof t.msg)) || load_files(&t, plan_path, replay_path)) {
        if (t.msg[0])
            fprintf(stderr, "remat: %s\n", t.msg);
        teardown(&t);
        return 1;
    }
    if (crt_init(ascii)) {
        teardown(&t);
        fprintf(stderr, "remat: cannot open the terminal\n");
        return 1;
    }
    t.moved_at = -1;
    t.dirty = DIRTY_ALL;
    int was_have = 0;
    FrameStats fs = {0};
    while (!t.quit && !crt_quit_flag) {
        double f0 = clock_now();
        if (t.moved_at != 0 && (t.moved_at < 0 || clock_now() - t.moved_at >= DEBOUNCE_S)) {
            t.moved_at = 0;
            if (session_stale(s) && session_request(s))
                react(&t, answer_shown(&t));
            t.dirty |= DIRTY_STATUS;
        }
        react(&t, collect(&t, &was_have));
        react(&t, actions_play_tick(&t));
        draw(&t);
        frame_note(&fs, clock_now() - f0);
        int body_busy;
        int busy = anything_busy(&t, &body_busy);
        int timeout = -1;
        if (t.moved_at > 0)
            timeout = 1 + (int)((DEBOUNCE_S - (clock_now() - t.moved_at)) * 1000);
        else if (busy)
            timeout = SPIN_MS;
        if (t.playing) {
            int pt = 1 + (int)((t.play_next - clock_now()) * 1000);
            if (pt < 0)
                pt = 0;
            if (timeout < 0 || pt < timeout)
                timeout = pt;
        }
        if (timeout < -1)
            timeout = 0;
        struct pollfd pf[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = session_fd(s), .events = POLLIN}};
        int np = 2;
        /* a signal (Ctrl-C sets crt_quit_flag; a resize makes getch
         * return KEY_RESIZE) ends the wait early: read the keys below */
        int pr = poll(pf, (nfds_t)np, timeout);
        if (pr == 0 && busy) {
            /* a spinner frame: the status line, and the view only when it
             * shows something moving */
            t.spin++;
            t.dirty |= DIRTY_STATUS | (body_busy ? DIRTY_BODY : 0);
        }
        int ch;
        while ((ch = getch()) != ERR) {
            if (ch == KEY_RESIZE) {
                t.dirty = DIRTY_ALL;
                continue;
            }
            if (t.msg[0] && !t.prompt && ch != KEY_MOUSE) {
                t.msg[0] = '\0';
                t.dirty |= DIRTY_BOTTOM;
            }
            double k0 = clock_now();
            react(&t, handle_key(&t, ch));
            frame_note(&fs, clock_now() - k0);
        }
    }
    crt_done();
    frame_report(&fs);
    if (!teardown(&t))
        quit_under_task(0);
    return 0;
}
