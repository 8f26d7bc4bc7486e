/* picker.c — the solver picker: every registered solver with its title
 * and options; a solver that refused this graph shows why (its solver_new
 * error, remembered from the session cache). */
#include <stdio.h>
#include <string.h>

#include "ui/crt.h"
#include "ui/tui.h"

/* The refusal recorded for cls, if it was tried. */
static const char *refusal(const Session *s, const SolverClass *cls)
{
    for (int i = 0; i < s->n_cache; i++) {
        const SessionEntry *en = &s->cache[i];
        if (en->cls == cls && en->rc != ERR_OK && en->rc != ERR_OVER_BUDGET &&
            en->rc != ERR_CANCELLED)
            return en->err.msg;
    }
    return NULL;
}

void picker_draw(Tui *t, int h, int w)
{
    int n = solver_count();
    int y = 2;
    attron(A_BOLD);
    tui_put(1, 2, w - 4, "Choose a solver (Up/Down or j/k, Enter to use, Esc to close)");
    attroff(A_BOLD);
    for (int i = 0; i < n && y < h - 4; i++) {
        const SolverClass *c = solver_at(i);
        char line[512];
        snprintf(line, sizeof line, "%c %d %-12s %s", c == t->s->cls ? '*' : ' ', i + 1, c->name, c->title);
        if (i == t->picker_sel)
            attron(A_REVERSE);
        tui_put(y++, 2, w - 4, line);
        if (i == t->picker_sel)
            attroff(A_REVERSE);
        const char *why = refusal(t->s, c);
        if (why && y < h - 4) {
            attron(crt_attr(CRT_ERROR));
            snprintf(line, sizeof line, "      unavailable: %s", why);
            tui_put(y++, 2, w - 4, line);
            attroff(crt_attr(CRT_ERROR));
        }
    }
    const SolverClass *sel = solver_at(t->picker_sel);
    y++;
    for (const SolverParam *p = sel ? sel->params : NULL; p && p->name && y < h - 1; p++) {
        char line[512];
        snprintf(line, sizeof line, "  option %s (default %s): %s", p->name, p->def, p->help);
        tui_put(y++, 2, w - 4, line);
    }
}

int picker_key(Tui *t, int ch)
{
    int n = solver_count();
    if (ch == KEY_UP || ch == 'k')
        t->picker_sel = (t->picker_sel + n - 1) % n;
    else if (ch == KEY_DOWN || ch == 'j')
        t->picker_sel = (t->picker_sel + 1) % n;
    else if (ch >= '1' && ch <= '9' && ch - '1' < n)
        t->picker_sel = ch - '1';
    else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
        session_set_solver(t->s, solver_at(t->picker_sel));
        t->moved_at = -1;   /* solve now, no debounce */
        t->picker = 0;
        snprintf(t->msg, sizeof t->msg, "solver %s", solver_at(t->picker_sel)->name);
        t->msg_err = 0;
    } else if (ch == 27 || ch == 'q' || ch == 'a')
        t->picker = 0;
    else
        return 0;
    return 1;
}
