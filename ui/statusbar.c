/* statusbar.c — the two rows under the slider: the status line (graph,
 * solver, budget, peak, cost, which answer the plan is and what runs) and
 * the message line (prompts, the play line, messages, a key summary).
 * The status line says no more than is true: a quick answer is "quick", a
 * plan from a search still running is "best so far", only the command
 * line's answer is "final"; when it does not fit, the least important
 * parts go first, never the state. */
#include <stdio.h>
#include <string.h>

#include "render/measured.h"
#include "render/play.h"
#include "render/plot.h"
#include "src/base/units.h"
#include "src/replay/replay.h"
#include "ui/crt.h"
#include "ui/export_ui.h"
#include "ui/replay_ui.h"
#include "ui/tui.h"

/* One part of the status line; the larger `drop`, the sooner it goes
 * when the line is too wide (0: never). */
typedef struct Part {
    char text[400];
    int drop;
} Part;

/* Which answer is shown and what the solve does now. */
static void state_text(const Tui *t, const SessionStatus *st, char *buf, size_t n)
{
    const Session *s = t->s;
    int pending = t->moved_at != 0 || session_stale(s);
    int other = s->have && (s->have_budget != s->budget || s->have_cls != s->cls);
    if (pending) {
        snprintf(buf, n, "%c waiting for the slider", tui_spinner(t));
    } else if (st->solving && s->tightest) {
        snprintf(buf, n, "%c finding the tightest budget %.1fs%s", tui_spinner(t), st->elapsed,
                 !s->have ? "" : other ? ", previous plan shown" : ", best so far");
    } else if (st->solving && (!s->have || other)) {
        snprintf(buf, n, "%c solving %.1fs%s", tui_spinner(t), st->elapsed, s->have ? ", previous plan shown" : "");
    } else if (st->solving && s->shown == SHOWN_QUICK) {
        snprintf(buf, n, "%c refining %.1fs, quick plan", tui_spinner(t), st->elapsed);
    } else if (st->solving) {
        snprintf(buf, n, "%c refining %.1fs, best so far", tui_spinner(t), st->elapsed);
    } else if (s->have && s->shown == SHOWN_FINAL && !other) {
        snprintf(buf, n, "final %.1fs%s", s->secs, s->from_cache ? " (cached)" : "");
    } else if (s->have && other) {
        snprintf(buf, n, "previous plan shown");   /* the want was refused */
    } else {
        snprintf(buf, n, "no plan");
    }
}

void status_draw(Tui *t, int y, int w)
{
    Session *s = t->s;
    SessionStatus st;
    session_status(s, &st);
    /* name, solver, budget, peak, cost, state, origin, measurement or
     * replay, pins, export, queue: 11 at most (10 overflowed when a replay,
     * pins, an export and queued work showed at once) */
    Part part[12];
    int np = 0;
    char pk[48], bud[48];
    if (s->have)
        plot_bytes_pair(s->budget, s->sim.peak, bud, sizeof bud, pk, sizeof pk);
    else {
        units_format_bytes(s->budget, bud, sizeof bud);
        snprintf(pk, sizeof pk, "-");
    }
    part[np++] = (Part){"", 5};
    snprintf(part[np - 1].text, sizeof part[0].text, "%s", s->g->name[0] ? s->g->name : "graph");
    part[np] = (Part){"", 0};
    if (s->have && s->have_cls && s->have_cls != s->cls)
        snprintf(part[np++].text, sizeof part[0].text, "%s (shown: %s)", s->cls->name, s->have_cls->name);
    else
        snprintf(part[np++].text, sizeof part[0].text, "%s", s->cls->name);
    /* the slider's row shows the budget too: it may go */
    part[np] = (Part){"", 7};
    snprintf(part[np++].text, sizeof part[0].text, "budget %s", bud);
    part[np] = (Part){"", 0};
    snprintf(part[np++].text, sizeof part[0].text, "peak %s%s", pk, s->have && s->sim.peak > s->budget ? " OVER" : "");
    part[np] = (Part){"", 0};
    if (s->have)
        snprintf(part[np++].text, sizeof part[0].text, "cost %+.1f%%", plan_overhead(&s->plan) * 100);
    else
        snprintf(part[np++].text, sizeof part[0].text, "cost -");
    part[np] = (Part){"", 0};
    state_text(t, &st, part[np++].text, sizeof part[0].text);
    /* who made the plan, and what was proven about it */
    char origin[200] = "";
    if (s->have && s->plan.origin && s->plan.origin[0] && (!s->plan.solver || strcmp(s->plan.origin, s->plan.solver)))
        snprintf(origin, sizeof origin, "by %.60s", s->plan.origin);
    if (s->have && s->plan.bound >= 0) {
        size_t u = strlen(origin);
        if (s->plan.optimal)
            snprintf(origin + u, sizeof origin - u, "%soptimal", u ? ", " : "");
        else
            snprintf(origin + u, sizeof origin - u, "%sgap %.2f%%", u ? ", " : "",
                     s->plan.cost > 0 ? 100 * (s->plan.cost - s->plan.bound) / s->plan.cost : 0.0);
    }
    if (origin[0]) {
        part[np] = (Part){"", 2};
        snprintf(part[np++].text, sizeof part[0].text, "%s", origin);
    }
    const Replay *rp = replay_ui_shown(t);
    if (rp) {
        char m[32];
        units_format_bytes(rp->measured_peak, m, sizeof m);
        part[np] = (Part){"", 6};
        snprintf(part[np++].text, sizeof part[0].text, "measured %s %+.1f%%", m,
                 100 * measured_diff(rp->measured_peak, rp->simulated_peak));
    } else if (replay_ui_busy(t->rep)) {
        part[np] = (Part){"", 6};
        snprintf(part[np++].text, sizeof part[0].text, "%c replaying %.1fs", tui_spinner(t),
                 !strcmp(st.io_what, "replay") ? st.io_elapsed : 0.0);
    }
    if (s->pin[0] || s->force[0]) {
        part[np] = (Part){"", 3};
        snprintf(part[np++].text, sizeof part[0].text, "%s%.120s%s%s%.120s", s->pin[0] ? "pin " : "", s->pin,
                 s->pin[0] && s->force[0] ? " " : "", s->force[0] ? "force " : "", s->force);
    }
    char ex[200];
    if (export_ui_status(t->exp, s, ex, sizeof ex)) {
        part[np] = (Part){"", 3};
        snprintf(part[np++].text, sizeof part[0].text, "%c %s", tui_spinner(t), ex);
    }
    if (st.bg_left) {
        part[np] = (Part){"", 8};
        if (st.bg_what[0])
            snprintf(part[np++].text, sizeof part[0].text, "%c %s, %d queued", tui_spinner(t), st.bg_what,
                     st.bg_left - 1);
        else
            snprintf(part[np++].text, sizeof part[0].text, "%d queued", st.bg_left);
    }
    /* until the line fits, the least important part goes: background
     * work, the budget (the slider row shows it), the measurement, then
     * the graph's name (first shrunk to 12 columns), never who made the
     * plan before those */
    char line[1600];
    for (;;) {
        int len = 1;
        for (int i = 0; i < np; i++)
            len += (int)strlen(part[i].text) + (i ? 3 : 0);
        if (len <= w)
            break;
        int worst = -1;
        for (int i = 0; i < np; i++)
            if (part[i].drop && (worst < 0 || part[i].drop > part[worst].drop))
                worst = i;
        if (worst < 0)
            break;
        if (worst == 0) {   /* the name's slot stays */
            int name = (int)strlen(part[0].text), keep = name - (len - w);
            if (name > 12 && keep < name) {
                part[0].text[keep < 12 ? 12 : keep] = '\0';
            } else {
                part[0].text[0] = '\0';
                part[0].drop = 0;
            }
            continue;
        }
        memmove(part + worst, part + worst + 1, (size_t)(np - worst - 1) * sizeof *part);
        np--;
    }
    size_t u = 0;
    line[u++] = ' ';
    line[u] = '\0';
    for (int i = 0; i < np; i++)
        if (part[i].text[0])
            u += (size_t)snprintf(line + u, sizeof line - u, "%s%s", u > 1 ? " | " : "", part[i].text);
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
                         "a:solver  e:export  r:replay  x:cancel");
    }
}
