/* actions.c — what the global keys do (the handlers of ui/keymap.h): each
 * changes the session or the explorer's state and says what to redraw. */
#include <stdio.h>
#include <string.h>

#include "src/base/clock.h"
#include "ui/crt.h"
#include "ui/export_ui.h"
#include "ui/keymap.h"
#include "ui/replay_ui.h"
#include "ui/tui.h"

#define PLAY_STEP_S 0.2

static Reaction budget_to(Tui *t, int64_t b)
{
    session_set_budget(t->s, b);
    return R_STATUS | R_BODY | R_SOLVE;
}

static Reaction budget_by(Tui *t, int num, int den)
{
    Session *s = t->s;
    int64_t step = (s->base_peak - s->min_peak) * num / den;
    if (step == 0)
        step = num > 0 ? 1 : -1;
    return budget_to(t, s->budget + step);
}

static int cursor_max(const Tui *t)
{
    return t->s->have ? t->s->sim.T - 1 : 0;
}

static Reaction cursor_to(Tui *t, int c)
{
    if (c > cursor_max(t))
        c = cursor_max(t);
    if (c < 0)
        c = 0;
    t->cursor = c;
    return R_BODY | R_STATUS;
}

static Reaction view_to(Tui *t, int v)
{
    t->view = (v + VIEW_COUNT) % VIEW_COUNT;
    return R_ALL;
}

static Reaction act_quit(Tui *t) { t->quit = 1; return R_QUIT; }
static Reaction act_help(Tui *t) { t->mode = MODE_HELP; t->help_scroll = 0; return R_ALL; }
static Reaction act_next_view(Tui *t) { return view_to(t, t->view + 1); }
static Reaction act_prev_view(Tui *t) { return view_to(t, t->view - 1); }
static Reaction act_budget_down(Tui *t) { return budget_by(t, -1, 100); }
static Reaction act_budget_up(Tui *t) { return budget_by(t, 1, 100); }
static Reaction act_budget_down_coarse(Tui *t) { return budget_by(t, -1, 10); }
static Reaction act_budget_up_coarse(Tui *t) { return budget_by(t, 1, 10); }
static Reaction act_budget_min(Tui *t) { return budget_to(t, t->s->min_peak); }
static Reaction act_budget_max(Tui *t) { return budget_to(t, t->s->base_peak); }
static Reaction act_cursor_left(Tui *t) { return cursor_to(t, t->cursor - 1); }
static Reaction act_cursor_right(Tui *t) { return cursor_to(t, t->cursor + 1); }
static Reaction act_cursor_home(Tui *t) { return cursor_to(t, 0); }
static Reaction act_cursor_end(Tui *t) { return cursor_to(t, cursor_max(t)); }
static Reaction act_cursor_peak(Tui *t)
{
    return t->s->have ? cursor_to(t, t->s->sim.peak_step) : R_NONE;
}

static Reaction act_budget_type(Tui *t)
{
    t->prompt = PROMPT_BUDGET;
    t->input[0] = '\0';
    return R_STATUS;
}

static Reaction group_by(Tui *t, int d)
{
    int n = t->s->have ? t->s->ov.n : 0;
    if (n == 0) {
        tui_say(t, 0, "the shown plan has no structure to select");
        return R_STATUS;
    }
    t->sel_group = t->sel_group < 0 ? (d > 0 ? 0 : n - 1) : (t->sel_group + d + n) % n;
    return R_BODY | R_STATUS;
}

static Reaction act_group_next(Tui *t) { return group_by(t, 1); }
static Reaction act_group_prev(Tui *t) { return group_by(t, -1); }

/* Add node v to a comma-separated id list (or take it out). */
static void list_toggle(char *list, size_t n, const char *id, int add)
{
    char out[1024] = "";
    size_t u = 0;
    const char *p = list;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (!(len == strlen(id) && !strncmp(p, id, len)) && u + len + 2 < sizeof out) {
            if (u)
                out[u++] = ',';
            memcpy(out + u, p, len);
            u += len;
            out[u] = '\0';
        }
        p += len + (c ? 1 : 0);
    }
    if (add && u + strlen(id) + 2 < sizeof out)
        snprintf(out + u, sizeof out - u, "%s%s", u ? "," : "", id);
    snprintf(list, n, "%s", out);
}

static Reaction rule(Tui *t, int pin)
{
    Session *s = t->s;
    if (t->sel_node < 0 || t->sel_node >= s->g->n) {
        tui_say(t, 1, "select a node first (j/k in the Recompute view, n/N or / in the Graph view)");
        return R_STATUS;
    }
    const char *id = s->g->nodes[t->sel_node].id;
    if (s->g->nodes[t->sel_node].phase == PHASE_INPUT) {
        tui_say(t, 1, "'%s' is an input: it never runs, so it cannot be pinned or forced", id);
        return R_STATUS;
    }
    char pins[1024], forces[1024];
    snprintf(pins, sizeof pins, "%s", s->pin);
    snprintf(forces, sizeof forces, "%s", s->force);
    list_toggle(pins, sizeof pins, id, pin);
    list_toggle(forces, sizeof forces, id, !pin);
    session_set_rules(s, pins, forces);
    tui_say(t, 0, "%s %s; solving again with pin=%s force=%s", pin ? "pinned (never recompute)" : "forced (recompute)",
            id, s->pin[0] ? s->pin : "-", s->force[0] ? s->force : "-");
    return R_BODY | R_STATUS | R_SOLVE_NOW;
}

static Reaction act_pin(Tui *t) { return rule(t, 1); }
static Reaction act_force(Tui *t) { return rule(t, 0); }
static Reaction act_unpin(Tui *t)
{
    session_set_rules(t->s, "", "");
    tui_say(t, 0, "no node pinned or forced");
    return R_BODY | R_STATUS | R_SOLVE_NOW;
}

static Reaction act_picker(Tui *t)
{
    picker_open(t);
    return R_ALL;
}

static Reaction act_export(Tui *t)
{
    if (export_ui_busy(t->exp)) {
        tui_say(t, 1, "export: one is still running (x cancels it)");
        return R_STATUS;
    }
    t->prompt = PROMPT_EXPORT;
    t->input[0] = '\0';
    return R_STATUS;
}

static Reaction act_replay(Tui *t)
{
    int rc = replay_ui_start(t, t->msg, sizeof t->msg);
    t->msg_err = rc != 0;
    return R_STATUS;
}

static Reaction act_cancel(Tui *t)
{
    int e = export_ui_cancel(t->exp, t->s), r = replay_ui_cancel(t->rep, t->s);
    if (e || r)
        tui_say(t, 0, "cancelling the %s...", e && r ? "export and the replay" : e ? "export" : "replay");
    else
        tui_say(t, 0, "nothing to cancel: no export or replay runs");
    return R_STATUS;
}

static Reaction act_play(Tui *t)
{
    if (!t->s->have)
        return R_NONE;
    if (t->playing) {
        t->playing = 0;
        return R_STATUS;
    }
    if (t->cursor >= cursor_max(t))
        t->cursor = 0;
    t->playing = t->play_on = 1;
    t->play_next = clock_now() + PLAY_STEP_S;
    return R_BODY | R_STATUS;
}

static Reaction act_play_stop(Tui *t)
{
    t->playing = t->play_on = 0;
    return R_STATUS;
}

static Reaction act_ascii(Tui *t)
{
    (void)t;
    crt_set_ascii(!crt_ascii());
    return R_ALL;
}

static Reaction act_redraw(Tui *t)
{
    (void)t;
    clearok(curscr, TRUE);
    return R_ALL;
}

static Reaction (*const handlers[ACT_COUNT])(Tui *) = {
#define X(name, k1, k2, label, help) act_##name,
    ACTIONS(X)
#undef X
};

Reaction action_run(Tui *t, int a)
{
    return a >= 0 && a < ACT_COUNT ? handlers[a](t) | R_TAKEN : R_NONE;
}

Reaction actions_play_tick(Tui *t)
{
    if (!t->playing)
        return R_NONE;
    double now = clock_now();
    if (now < t->play_next)
        return R_NONE;
    if (t->cursor < cursor_max(t))
        t->cursor++;
    if (t->cursor >= cursor_max(t))
        t->playing = 0;
    t->play_next = now + PLAY_STEP_S;
    return R_BODY | R_STATUS;
}
