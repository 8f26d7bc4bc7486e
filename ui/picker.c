/* picker.c — the solver picker: every registered solver with its title; a
 * solver that refused this graph shows why (its answer in the session's
 * cache). Under the list, the highlighted solver's options with the values
 * in force (the user's, or the default), which can be edited: Tab or Right
 * moves into the options, Enter types a value, an empty value restores the
 * default. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/crt.h"
#include "ui/tui.h"

/* The refusal recorded for cls with the options it would get now, if it
 * was tried with them. */
static const char *refusal(Session *s, const SolverClass *cls)
{
    return session_refusal(s, cls);
}

static int n_params(const SolverClass *c)
{
    int n = 0;
    for (const SolverParam *p = c ? c->params : NULL; p && p->name; p++)
        n++;
    return n;
}

/* The value in force for option p of cls: the user's, else the default. */
static const char *value_of(Session *s, const SolverClass *cls, const SolverParam *p, int *given)
{
    const SolverOpts *o = session_class_opts(s, cls);
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->key[i], p->name)) {
            *given = 1;
            return o->val[i];
        }
    *given = 0;
    return p->def;
}

void picker_open(Tui *t)
{
    t->mode = MODE_PICKER;
    t->picker_in_opts = 0;
    t->picker_opt = 0;
    for (int i = 0; i < solver_count(); i++)
        if (solver_at(i) == t->s->cls)
            t->picker_sel = i;
}

void picker_draw(Tui *t, int y0, int h, int w)
{
    int n = solver_count();
    int y = y0 + 1;
    tui_put_attr(y0, 2, w - 4,
                 t->picker_in_opts ? "Options of the highlighted solver (Up/Down, Enter to edit, Left/Tab: back to the list)"
                                   : "Choose a solver (Up/Down or j/k, 1-9, Enter to use, Tab: its options, Esc to close)",
                 A_BOLD);
    const SolverClass *sel = solver_at(t->picker_sel);
    int np = n_params(sel);
    for (int i = 0; i < n && y < y0 + h - 1; i++) {
        const SolverClass *c = solver_at(i);
        char line[512];
        snprintf(line, sizeof line, "%c %d %-16s %s", c == t->s->cls ? '*' : ' ', i + 1, c->name, c->title);
        tui_put_attr(y++, 2, w - 4, line, i == t->picker_sel && !t->picker_in_opts ? A_REVERSE : A_NORMAL);
        const char *why = refusal(t->s, c);
        /* a refusal's line only where every solver and the options still fit */
        if (why && y + (n - i - 1) + np + 3 < y0 + h) {
            snprintf(line, sizeof line, "      unavailable: %.400s", why);
            tui_put_attr(y++, 2, w - 4, line, crt_attr(CRT_ERROR));
        }
    }
    y++;
    char line[700];
    snprintf(line, sizeof line, "options of %s (value in force):", sel ? sel->name : "-");
    tui_put_attr(y++, 2, w - 4, line, A_BOLD);
    int k = 0;
    for (const SolverParam *p = sel ? sel->params : NULL; p && p->name && y < y0 + h - 1; p++, k++) {
        int given;
        const char *v = value_of(t->s, sel, p, &given);
        int cur = t->picker_in_opts && k == t->picker_opt;
        snprintf(line, sizeof line, "%c %-14s = %-10s %s  %s", cur ? '>' : ' ', p->name, v,
                 given ? "(set)    " : "(default)", p->help);
        tui_put_attr(y++, 2, w - 4, line, cur ? A_REVERSE : A_NORMAL);
    }
    if (!np && y < y0 + h - 1)
        tui_put(y++, 4, w - 6, "(none)");
    if (y < y0 + h - 1) {
        const Session *s = t->s;
        snprintf(line, sizeof line, "node rules for every solver: pin=%s force=%s (P/F on a selected node, C clears)",
                 s->pin[0] ? s->pin : "-", s->force[0] ? s->force : "-");
        tui_put(y, 2, w - 4, line);
    }
}

static Reaction use(Tui *t)
{
    session_set_solver(t->s, solver_at(t->picker_sel));
    t->mode = MODE_VIEW;
    tui_say(t, 0, "solver %s", solver_at(t->picker_sel)->name);
    return R_ALL | R_SOLVE_NOW | R_TAKEN;
}

Reaction picker_key(Tui *t, int ch)
{
    int n = solver_count();
    int np = n_params(solver_at(t->picker_sel));
    if (t->picker_in_opts) {
        if (ch == KEY_UP || ch == 'k')
            t->picker_opt = (t->picker_opt + np - 1) % np;
        else if (ch == KEY_DOWN || ch == 'j')
            t->picker_opt = (t->picker_opt + 1) % np;
        else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
            t->prompt = PROMPT_OPTION;
            int given;
            const SolverClass *c = solver_at(t->picker_sel);
            snprintf(t->input, sizeof t->input, "%s", value_of(t->s, c, &c->params[t->picker_opt], &given));
            return R_STATUS | R_TAKEN;
        } else if (ch == KEY_LEFT || ch == '\t' || ch == 'h')
            t->picker_in_opts = 0;
        else if (ch == 27 || ch == 'q' || ch == 'a') {
            t->mode = MODE_VIEW;
            return R_ALL | R_TAKEN;
        } else
            return R_TAKEN;
        return R_BODY | R_TAKEN;
    }
    if (ch == KEY_UP || ch == 'k')
        t->picker_sel = (t->picker_sel + n - 1) % n;
    else if (ch == KEY_DOWN || ch == 'j')
        t->picker_sel = (t->picker_sel + 1) % n;
    else if (ch >= '1' && ch <= '9' && ch - '1' < n)
        t->picker_sel = ch - '1';
    else if ((ch == '\t' || ch == KEY_RIGHT || ch == 'l') && np) {
        t->picker_in_opts = 1;
        t->picker_opt = 0;
    } else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER)
        return use(t);
    else if (ch == 27 || ch == 'q' || ch == 'a') {
        t->mode = MODE_VIEW;
        return R_ALL | R_TAKEN;
    } else
        return R_TAKEN;     /* the picker covers the view: other keys do nothing */
    return R_BODY | R_TAKEN;
}

Reaction picker_option_commit(Tui *t, const char *text)
{
    if (!text)
        return R_BODY | R_STATUS;
    const SolverClass *c = solver_at(t->picker_sel);
    const SolverParam *p = &c->params[t->picker_opt];
    Err e;
    err_clear(&e);
    if (session_set_option(t->s, c, p->name, text, &e)) {
        tui_say(t, 1, "%s", e.msg);
        return R_BODY | R_STATUS;
    }
    tui_say(t, 0, "%s: %s = %s%s", c->name, p->name, text[0] ? text : p->def, text[0] ? "" : " (default)");
    if (c == t->s->cls)
        return R_BODY | R_STATUS | R_SOLVE_NOW;
    return R_BODY | R_STATUS;
}
