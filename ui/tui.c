/* tui.c — the explorer's main loop: poll() on the keyboard and the solver
 * worker's pipe, key and mouse dispatch through the action table, budget
 * debounce (a solve starts ~50 ms after the last move), prompts for typed
 * budgets and export paths, and one frame per loop (erase, draw,
 * wnoutrefresh, doupdate). */
#include "ui/tui.h"

#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "render/explore.h"
#include "render/export.h"
#include "render/plot.h"
#include "src/fileio.h"
#include "src/overlay_json.h"
#include "src/replay.h"
#include "src/units.h"
#include "ui/crt.h"
#include "ui/keymap.h"

#define DEBOUNCE_S 0.05
#define MIN_W 60
#define MIN_H 16

static const char *const view_names[VIEW_COUNT] = {"Curve", "Inspector", "Recomputed", "Structure",
                                                     "Compare", "Graph"};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void tui_put(int y, int x, int n, const char *text)
{
    if (n <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
        return;
    if (x + n > COLS)
        n = COLS - x;
    mvaddnstr(y, x, text, n);
}

static void say(Tui *t, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(Tui *t, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg, sizeof t->msg, fmt, ap);
    va_end(ap);
    t->msg_err = err;
}

/* ---- actions ---------------------------------------------------------- */

static void budget_to(Tui *t, int64_t b)
{
    session_set_budget(t->s, b);
    t->moved_at = mono_s();
}

static void budget_by(Tui *t, int num, int den)
{
    Session *s = t->s;
    int64_t step = (s->base_peak - s->min_peak) * num / den;
    if (step == 0)
        step = num > 0 ? 1 : -1;
    budget_to(t, s->budget + step);
}

static int cursor_max(const Tui *t)
{
    return t->s->have ? t->s->sim.T - 1 : 0;
}

static void act_quit(Tui *t) { t->quit = 1; }
static void act_help(Tui *t) { t->help = 1; }
static void act_next_view(Tui *t) { t->view = (t->view + 1) % VIEW_COUNT; t->scroll = 0; }
static void act_prev_view(Tui *t) { t->view = (t->view + VIEW_COUNT - 1) % VIEW_COUNT; t->scroll = 0; }
static void act_budget_down(Tui *t) { budget_by(t, -1, 100); }
static void act_budget_up(Tui *t) { budget_by(t, 1, 100); }
static void act_budget_down_coarse(Tui *t) { budget_by(t, -1, 10); }
static void act_budget_up_coarse(Tui *t) { budget_by(t, 1, 10); }
static void act_budget_min(Tui *t) { budget_to(t, t->s->min_peak); }
static void act_budget_max(Tui *t) { budget_to(t, t->s->base_peak); }
static void act_budget_type(Tui *t) { t->prompt = PROMPT_BUDGET; t->input[0] = '\0'; }
static void act_cursor_left(Tui *t) { if (t->cursor > 0) t->cursor--; }
static void act_cursor_right(Tui *t) { if (t->cursor < cursor_max(t)) t->cursor++; }
static void act_cursor_home(Tui *t) { t->cursor = 0; }
static void act_cursor_end(Tui *t) { t->cursor = cursor_max(t); }
static void act_cursor_peak(Tui *t) { if (t->s->have) t->cursor = t->s->sim.peak_step; }
static void act_scroll_up(Tui *t) { if (t->scroll > 0) t->scroll--; }
static void act_scroll_down(Tui *t) { t->scroll++; }
static void act_export(Tui *t)
{
    /* Graphviz is not thread-safe: no export while the layout runs */
    if (graph_view_busy(t->gv)) {
        say(t, 1, "export: wait for the graph layout to finish");
        return;
    }
    t->prompt = PROMPT_EXPORT;
    t->input[0] = '\0';
}
#define PLAY_STEP_S 0.2

static void act_play(Tui *t)
{
    if (!t->s->have)
        return;
    if (t->playing) {
        t->playing = 0;
        return;
    }
    if (t->cursor >= cursor_max(t))
        t->cursor = 0;
    t->playing = t->play_on = 1;
    t->play_next = mono_s() + PLAY_STEP_S;
}

static void act_play_stop(Tui *t)
{
    t->playing = t->play_on = 0;
}

/* One timer tick: advance the cursor when the step is due; stop at the end. */
static void play_tick(Tui *t)
{
    if (!t->playing)
        return;
    double now = mono_s();
    if (now < t->play_next)
        return;
    if (t->cursor < cursor_max(t))
        t->cursor++;
    if (t->cursor >= cursor_max(t))
        t->playing = 0;
    t->play_next = now + PLAY_STEP_S;
}

static void act_ascii(Tui *t) { (void)t; }
/* the graph view takes these keys itself (graph_view_key); elsewhere they
 * only say where they work */
static void graph_only(Tui *t)
{
    say(t, 0, "that key works in the Graph view (Tab to it)");
}
static void act_zoom_in(Tui *t) { graph_only(t); }
static void act_zoom_out(Tui *t) { graph_only(t); }
static void act_node_next(Tui *t) { graph_only(t); }
static void act_node_prev(Tui *t) { graph_only(t); }
static void act_redraw(Tui *t) { (void)t; clearok(curscr, TRUE); }

static void act_picker(Tui *t)
{
    t->picker = 1;
    for (int i = 0; i < solver_count(); i++)
        if (solver_at(i) == t->s->cls)
            t->picker_sel = i;
}

static void act_replay(Tui *t)
{
    int rc = replay_ui_start(t, t->msg, sizeof t->msg);
    t->msg_err = rc != 0;
}

static void (*const handlers[ACT_COUNT])(Tui *) = {
#define X(name, k1, k2, label, help) act_##name,
    ACTIONS(X)
#undef X
};

/* ---- prompts ----------------------------------------------------------- */

static const char *ext_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && !strchr(dot, '/') ? dot + 1 : "";
}

static void do_export(Tui *t, const char *path)
{
    Session *s = t->s;
    const char *ext = ext_of(path);
    const Plan *pl = s->have ? &s->plan : NULL;
    Err e;
    err_clear(&e);
    int rc;
    if (!strcmp(ext, "json")) {
        if (!pl) {
            say(t, 1, "export: no plan yet");
            return;
        }
        cJSON *extra = NULL;
        if (s->ov.n || s->ov.title) { /* the structure drawn in the views goes along */
            extra = cJSON_CreateObject();
            cJSON_AddItemToObject(extra, "structure", overlay_to_json(&s->ov, s->g));
        }
        char *js = plan_to_json(pl, s->g, extra);
        rc = file_write_all(path, js, strlen(js), &e);
        free(js);
    } else if (!strcmp(ext, "dot") || !strcmp(ext, "gv") || !strcmp(ext, "svg") ||
               !strcmp(ext, "png")) {
        rc = export_graph(s->g, pl, s->ov.n ? &s->ov : NULL, !strcmp(ext, "gv") ? "dot" : ext, path, &e);
    } else {
        say(t, 1, "export: '%s': name a .dot, .svg, .png or .json file", path);
        return;
    }
    if (rc)
        say(t, 1, "export failed: %s", e.msg);
    else
        say(t, 0, "wrote %s", path);
}

static void prompt_commit(Tui *t)
{
    int kind = t->prompt;
    t->prompt = PROMPT_NONE;
    if (!t->input[0])
        return;
    if (kind == PROMPT_EXPORT) {
        do_export(t, t->input);
        return;
    }
    int64_t b;
    Err e;
    err_clear(&e);
    if (units_parse_bytes(t->input, t->s->base_peak, &b, &e)) {
        say(t, 1, "%s", e.msg);
        return;
    }
    if (b < t->s->min_peak || b > t->s->base_peak) {
        char lo[32], hi[32];
        units_format_bytes(t->s->min_peak, lo, sizeof lo);
        units_format_bytes(t->s->base_peak, hi, sizeof hi);
        say(t, 1, "budget clamped to the range %s .. %s", lo, hi);
    }
    budget_to(t, b);
    t->moved_at = -1;
}

static void prompt_key(Tui *t, int ch)
{
    size_t n = strlen(t->input);
    if (ch == 27)
        t->prompt = PROMPT_NONE;
    else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER)
        prompt_commit(t);
    else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n > 0)
        t->input[n - 1] = '\0';
    else if (ch == 21)
        t->input[0] = '\0';
    else if (ch >= 32 && ch < 127 && n + 1 < sizeof t->input) {
        t->input[n] = (char)ch;
        t->input[n + 1] = '\0';
    }
}

/* ---- mouse --------------------------------------------------------------- */

static void mouse_key(Tui *t)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return;
    int press = ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED);
    if (ev.bstate & BUTTON1_RELEASED) {
        t->dragging = 0;
        return;
    }
    int on_slider = ev.y == t->slider_y && ev.x >= t->slider_x - 1 && ev.x <= t->slider_x + t->slider_w;
    if ((press && on_slider) || (t->dragging && (ev.bstate & REPORT_MOUSE_POSITION))) {
        t->dragging = 1;
        budget_to(t, plot_slider_value(ev.x - t->slider_x, t->s->min_peak, t->s->base_peak, t->slider_w));
    } else if (press && t->view == VIEW_CURVE && ev.x >= t->plot_x && ev.x < t->plot_x + t->plot_w &&
               ev.y >= t->plot_y && ev.y <= t->plot_y + t->plot_h) {
        int st = plot_step_of_col(ev.x - t->plot_x, t->plot_steps, t->plot_w);
        t->cursor = st <= cursor_max(t) ? st : cursor_max(t);
    }
}

static void handle_key(Tui *t, int ch)
{
    if (t->help) {
        t->help = 0;
        return;
    }
    if (ch == KEY_MOUSE) {
        mouse_key(t);
        return;
    }
    if (t->prompt) {
        prompt_key(t, ch);
        return;
    }
    if (t->picker && picker_key(t, ch))
        return;
    if (graph_view_key(t, ch))
        return;
    int a = keymap_find(ch);
    if (a >= 0)
        handlers[a](t);
}

/* ---- frame ---------------------------------------------------------------- */

static void draw_status(Tui *t, int y, int w)
{
    Session *s = t->s;
    char line[1024], pk[32], bud[32];
    units_format_bytes(s->budget, bud, sizeof bud);
    if (s->have)
        units_format_bytes(s->sim.peak, pk, sizeof pk);
    else
        snprintf(pk, sizeof pk, "-");
    double el = 0, prog = 0;
    int busy = session_busy(s, &el, &prog) || (t->moved_at != 0);
    char state[64];
    if (busy) {
        static const char spin[] = "|/-\\";
        snprintf(state, sizeof state, "%c solving %.1fs", spin[t->spin % 4], el);
    } else {
        snprintf(state, sizeof state, "solved %.3fs%s", s->secs, s->from_cache ? " (cached)" : "");
    }
    char who[96];
    if (s->have && s->have_cls && s->have_cls != s->cls)
        snprintf(who, sizeof who, "%s (shown: %s)", s->cls->name, s->have_cls->name);
    else
        snprintf(who, sizeof who, "%s", s->cls->name);
    char meas[96] = "";
    const Replay *rp = replay_ui_shown(t);
    if (rp) {
        char m[32];
        units_format_bytes(rp->measured_peak, m, sizeof m);
        snprintf(meas, sizeof meas, " | measured %s %+.1f%%", m,
                 100 * measured_diff(rp->measured_peak, rp->simulated_peak));
    } else if (replay_ui_busy(t->rep)) {
        snprintf(meas, sizeof meas, " | replaying");
    }
    snprintf(line, sizeof line, " %s | %s | budget %s | peak %s%s | cost %+.1f%%%s | %s",
             s->g->name[0] ? s->g->name : "graph", who, bud, pk,
             s->have && s->sim.peak > s->budget ? " OVER" : "",
             s->have ? plan_overhead(&s->plan) * 100 : 0.0, meas, state);
    attron(crt_attr(CRT_BAR));
    mvhline(y, 0, ' ', w);
    tui_put(y, 0, w, line);
    attroff(crt_attr(CRT_BAR));
}

static void draw_bottom(Tui *t, int y, int w)
{
    char line[600];
    if (t->prompt) {
        snprintf(line, sizeof line, "%s%s_", t->prompt == PROMPT_BUDGET ? "budget (e.g. 512MiB, 60%): "
                                                                         : "export to (.dot .svg .png .json): ",
                 t->input);
        curs_set(0);
        tui_put(y, 0, w, line);
        return;
    }
    const Session *s = t->s;
    if (t->play_on && s->have && !t->msg[0]) {
        char pl[500];
        play_step_text(s->g, s->plan.steps, &s->sim, t->cursor, pl, sizeof pl);
        snprintf(line, sizeof line, "%s %s", t->playing ? ">" : "||", pl);
        attron(A_BOLD);
        tui_put(y, 0, w, line);
        attroff(A_BOLD);
    } else if (t->msg[0]) {
        attron(t->msg_err ? crt_attr(CRT_ERROR) : A_NORMAL);
        tui_put(y, 0, w, t->msg);
        attroff(t->msg_err ? crt_attr(CRT_ERROR) : A_NORMAL);
    } else if (s->rc && s->rc != ERR_CANCELLED && !session_stale(s)) {
        attron(crt_attr(CRT_ERROR));
        tui_put(y, 0, w, s->err.msg);
        attroff(crt_attr(CRT_ERROR));
    } else {
        tui_put(y, 0, w, "?:help  q:quit  Left/Right PgUp/PgDn b:budget  h/l p:cursor  Space:play  Tab:view  a:solver  e:export  r:replay");
    }
}

static void draw(Tui *t)
{
    erase();
    int h = LINES, w = COLS;
    if (w < MIN_W || h < MIN_H) {
        char m[128];
        snprintf(m, sizeof m, "terminal too small (%dx%d); need at least %dx%d", w, h, MIN_W, MIN_H);
        tui_put(h / 2, 0, w, m);
        tui_put(h / 2 + 1, 0, w, "q quits");
        wnoutrefresh(stdscr);
        doupdate();
        return;
    }
    /* tabs */
    int x = 0;
    char tab[64];
    snprintf(tab, sizeof tab, " Remat Explorer ");
    attron(A_BOLD);
    tui_put(0, x, w - x, tab);
    attroff(A_BOLD);
    x += (int)strlen(tab);
    for (int v = 0; v < VIEW_COUNT; v++) {
        snprintf(tab, sizeof tab, " %s ", view_names[v]);
        if (v == t->view)
            attron(crt_attr(CRT_TAB));
        tui_put(0, x, w - x, tab);
        if (v == t->view)
            attroff(crt_attr(CRT_TAB));
        x += (int)strlen(tab) + 1;
    }
    int mh = h - 4;
    if (t->help) {
        help_draw(h - 3, w);
    } else if (t->picker) {
        picker_draw(t, h - 3, w);
    } else {
        switch (t->view) {
        case VIEW_CURVE: view_curve_draw(t, 1, mh, w); break;
        case VIEW_INSPECT: inspector_draw(t, 1, mh, w, 0); break;
        case VIEW_RECOMPUTED: view_recomputed_draw(t, 1, mh, w); break;
        case VIEW_COMPARE: view_compare_draw(t, 1, mh, w); break;
        case VIEW_GRAPH: view_graph_draw(t, 1, mh, w); break;
        default: view_structure_draw(t, 1, mh, w); break;
        }
    }
    slider_draw(t, h - 3, w);
    draw_status(t, h - 2, w);
    draw_bottom(t, h - 1, w);
    wnoutrefresh(stdscr);
    doupdate();
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
            fprintf(stderr, "remat: %s%s%s\n", strncmp(e.msg, plan_path, strlen(plan_path)) ? plan_path : "",
                    strncmp(e.msg, plan_path, strlen(plan_path)) ? ": " : "", e.msg);
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
        size_t len;
        char *text = file_read_all(replay_path, &len, &e);
        Replay r;
        replay_init(&r);
        if (!text || replay_from_json(&r, text, len, replay_path, &e)) {
            fprintf(stderr, "remat: %s\n", e.msg);
            free(text);
            plan_done(&p);
            return -1;
        }
        free(text);
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
    if (budget != PLAN_NO_BUDGET)
        session_set_budget(s, budget);
    Tui t;
    memset(&t, 0, sizeof t);
    t.s = s;
    t.rep = replay_ui_new();
    if (cuda && t.rep && replay_ui_use_cuda(t.rep, t.msg, sizeof t.msg)) {
        fprintf(stderr, "remat: %s\n", t.msg);
        replay_ui_free(t.rep);
        session_free(s);
        return 1;
    }
    if (!cuda && g->recipe && t.rep)
        replay_ui_use_torch(t.rep, t.msg, sizeof t.msg);   /* msg says why not */
    if (load_files(&t, plan_path, replay_path)) {
        replay_ui_free(t.rep);
        session_free(s);
        return 1;
    }
    if (crt_init(ascii)) {
        replay_ui_free(t.rep);
        session_free(s);
        fprintf(stderr, "remat: cannot open the terminal\n");
        return 1;
    }
    t.moved_at = -1;
    t.cmp = compare_new();
    t.gv = graph_view_new();
    int was_have = 0;
    while (!t.quit && !crt_quit_flag) {
        double now = mono_s();
        if (t.moved_at != 0 && (t.moved_at < 0 || now - t.moved_at >= DEBOUNCE_S)) {
            t.moved_at = 0;
            if (session_stale(s))
                session_request(s);
        }
        if (s->have && !was_have) {
            t.cursor = s->sim.peak_step > 0 ? s->sim.peak_step : 0;
            was_have = 1;
        }
        if (s->have && t.cursor > s->sim.T - 1)
            t.cursor = s->sim.T - 1;
        play_tick(&t);
        compare_tick(&t);
        graph_view_tick(&t);
        {
            char m[sizeof t.msg];
            int rr = replay_ui_tick(&t, m, sizeof m);
            if (rr) {
                memcpy(t.msg, m, sizeof t.msg);
                t.msg_err = rr < 0;
            }
        }
        draw(&t);
        int busy = session_busy(s, NULL, NULL) || compare_busy(&t) || replay_ui_busy(t.rep) ||
                   graph_view_busy(t.gv);
        int timeout = -1;
        if (t.moved_at > 0)
            timeout = 1 + (int)((DEBOUNCE_S - (mono_s() - t.moved_at)) * 1000);
        else if (busy)
            timeout = 100;
        if (t.playing) {
            int pt = 1 + (int)((t.play_next - mono_s()) * 1000);
            if (pt < 0)
                pt = 0;
            if (timeout < 0 || pt < timeout)
                timeout = pt;
        }
        if (timeout < -1)
            timeout = 0;
        struct pollfd pf[5] = {{.fd = STDIN_FILENO, .events = POLLIN},
                               {.fd = session_fd(s), .events = POLLIN},
                               {.fd = compare_fd(t.cmp), .events = POLLIN},
                               {.fd = replay_ui_fd(t.rep), .events = POLLIN},
                               {.fd = graph_view_fd(t.gv), .events = POLLIN}};
        int pr = poll(pf, 5, timeout);
        t.spin++;
        if (pr > 0 && (pf[1].revents & POLLIN))
            session_poll(s);
        int ch;
        while ((ch = getch()) != ERR) {
            if (ch == KEY_RESIZE)
                continue;   /* ncurses resized stdscr; the next frame adapts */
            if (t.msg[0] && !t.prompt && ch != KEY_MOUSE)
                t.msg[0] = '\0';
            if (ch == 'A' && !t.prompt && !t.picker && !t.help) {
                crt_set_ascii(!crt_ascii());
                continue;
            }
            handle_key(&t, ch);
        }
    }
    crt_done();
    compare_free(t.cmp);
    replay_ui_free(t.rep);
    graph_view_free(t.gv);
    session_free(s);
    return 0;
}
