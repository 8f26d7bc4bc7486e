/* slider.c — the three rows under every view: the budget slider (the
 * smallest possible peak on the left, the baseline peak on the right, the
 * knob at the wanted budget), the status line (graph, solver, budget, peak,
 * cost, what runs) and the message line (prompts, the play line, messages,
 * a key summary). */
#include <stdio.h>
#include <string.h>

#include "render/explore.h"
#include "render/plot.h"
#include "src/replay/replay.h"
#include "src/base/units.h"
#include "ui/crt.h"
#include "ui/export_ui.h"
#include "ui/replay_ui.h"
#include "ui/tui.h"

void slider_draw(Tui *t, int y, int w)
{
    const Session *s = t->s;
    char lo[48], hi[48], cur[48], head[80], cur2[48];
    /* each end printed with the digits it takes to differ from the budget */
    plot_bytes_pair(s->min_peak, s->budget, lo, sizeof lo, cur, sizeof cur);
    plot_bytes_pair(s->base_peak, s->budget, hi, sizeof hi, cur2, sizeof cur2);
    if (strlen(cur2) > strlen(cur))
        snprintf(cur, sizeof cur, "%s", cur2);
    if (s->have) {  /* as many digits as the status line gives it against the peak */
        char pk[48];
        plot_bytes_pair(s->sim.peak, s->budget, pk, sizeof pk, cur2, sizeof cur2);
        if (strlen(cur2) > strlen(cur))
            snprintf(cur, sizeof cur, "%s", cur2);
    }
    snprintf(head, sizeof head, "budget %s ", cur);
    int hl = (int)strlen(head);
    tui_put(y, 0, w, head);
    int x = hl + (int)strlen(lo) + 2;
    int sw = w - x - (int)strlen(hi) - 3;
    if (sw < 5)
        return;
    tui_put(y, hl, w - hl, lo);
    t->slider_x = x;
    t->slider_y = y;
    t->slider_w = sw;
    int knob = plot_slider_col(s->budget, s->min_peak, s->base_peak, sw);
    const char *line = crt_ascii() ? "-" : "\u2500";
    const char *fill = crt_ascii() ? "=" : "\u2501";
    mvaddch(y, x - 1, '[');
    for (int c = 0; c < sw; c++) {
        if (c == knob) {
            attron(crt_attr(CRT_BUDGET) | A_REVERSE);
            mvaddstr(y, x + c, crt_ascii() ? "O" : "\u25c6");
            attroff(crt_attr(CRT_BUDGET) | A_REVERSE);
        } else {
            mvaddstr(y, x + c, c < knob ? fill : line);
        }
    }
    mvaddch(y, x + sw, ']');
    tui_put(y, x + sw + 2, w - x - sw - 2, hi);
}

/* What the worker does besides the foreground plan, for the status line. */
static void background_text(const Tui *t, char *buf, size_t n)
{
    JobStatus st;
    session_status(t->s, &st);
    buf[0] = '\0';
    if (!st.bg_left)
        return;
    if (st.running && st.running_bg && st.cls)
        snprintf(buf, n, " | %c %s %s, %d queued", tui_spinner(t), st.kind == JOB_FIT ? "fitting" : "solving",
                 st.cls->name, st.bg_left - 1);
    else
        snprintf(buf, n, " | %d queued", st.bg_left);
}

void status_draw(Tui *t, int y, int w)
{
    Session *s = t->s;
    char line[1400], pk[48], bud[48];
    if (s->have)
        plot_bytes_pair(s->budget, s->sim.peak, bud, sizeof bud, pk, sizeof pk);
    else {
        units_format_bytes(s->budget, bud, sizeof bud);
        snprintf(pk, sizeof pk, "-");
    }
    double el = 0, prog = 0;
    int busy = session_busy(s, &el, &prog) || (t->moved_at != 0);
    char state[64];
    if (busy)
        snprintf(state, sizeof state, "%c solving %.1fs", tui_spinner(t), el);
    else
        snprintf(state, sizeof state, "solved %.3fs%s", s->secs, s->from_cache ? " (cached)" : "");
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
    char rules[300] = "", exp[160] = "", bg[160];
    if (s->pin[0] || s->force[0])
        snprintf(rules, sizeof rules, " | %s%.120s%s%s%.120s", s->pin[0] ? "pin " : "", s->pin,
                 s->pin[0] && s->force[0] ? " " : "", s->force[0] ? "force " : "", s->force);
    char origin[140] = "";
    if (s->have && s->plan.origin && s->plan.origin[0] && (!s->plan.solver || strcmp(s->plan.origin, s->plan.solver)))
        snprintf(origin, sizeof origin, " | plan by %.60s", s->plan.origin);
    /* what an exact solver proved about its plan */
    if (s->have && s->plan.bound >= 0) {
        size_t u = strlen(origin);
        if (s->plan.optimal)
            snprintf(origin + u, sizeof origin - u, " | optimal");
        else
            snprintf(origin + u, sizeof origin - u, " | best found, gap %.2f%%",
                     s->plan.cost > 0 ? 100 * (s->plan.cost - s->plan.bound) / s->plan.cost : 0.0);
    }
    char ex[140];
    if (export_ui_status(t->exp, ex, sizeof ex))
        snprintf(exp, sizeof exp, " | %c %s", tui_spinner(t), ex);
    background_text(t, bg, sizeof bg);
    snprintf(line, sizeof line, " %s | %s | budget %s | peak %s%s | cost %+.1f%%%s | %s%s%s%s%s",
             s->g->name[0] ? s->g->name : "graph", who, bud, pk,
             s->have && s->sim.peak > s->budget ? " OVER" : "",
             s->have ? plan_overhead(&s->plan) * 100 : 0.0, meas, state, origin, rules, exp, bg);
    attron(crt_attr(CRT_BAR));
    mvhline(y, 0, ' ', w);
    tui_put(y, 0, w, line);
    attroff(crt_attr(CRT_BAR));
}

void bottom_draw(Tui *t, int y, int w)
{
    static const char *const ask[] = {
        [PROMPT_BUDGET] = "budget (e.g. 512MiB, 60%): ",
        [PROMPT_EXPORT] = "export to (.dot .svg .png .json): ",
        [PROMPT_SEARCH] = "search id or op: ",
        [PROMPT_OPTION] = "value (empty: default): ",
    };
    char line[700];
    if (t->prompt) {
        snprintf(line, sizeof line, "%s%s_", ask[t->prompt], t->input);
        tui_put(y, 0, w, line);
        return;
    }
    const Session *s = t->s;
    if (t->play_on && s->have && !t->msg[0]) {
        char pl[500];
        play_step_text(s->g, s->plan.steps, &s->sim, t->cursor, pl, sizeof pl);
        snprintf(line, sizeof line, "%s %s", t->playing ? ">" : "||", pl);
        tui_put_attr(y, 0, w, line, A_BOLD);
    } else if (t->msg[0]) {
        tui_put_attr(y, 0, w, t->msg, t->msg_err ? crt_attr(CRT_ERROR) : A_NORMAL);
    } else if (s->rc && s->rc != ERR_CANCELLED && !session_stale(s)) {
        tui_put_attr(y, 0, w, s->err.msg, crt_attr(CRT_ERROR));
    } else {
        tui_put(y, 0, w, "?:help  q:quit  Left/Right PgUp/PgDn b:budget  h/l p:cursor  Space:play  Tab:view  "
                         "a:solver  e:export  r:replay");
    }
}
