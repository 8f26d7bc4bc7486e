/* help.c — the help screen: the global keys (from the action table), then
 * every view with what it shows and its own keys (from the view table),
 * then what the columns of the inspector and the recompute list mean.
 * j/k and the arrows scroll it; any other key closes it. */
#include <stdio.h>
#include <string.h>

#include "ui/crt.h"
#include "ui/keymap.h"
#include "ui/tui.h"

#define LINES_MAX 256

typedef struct HelpLine {
    char text[256];
    int bold;
} HelpLine;

static const char *const columns[] = {
    "Inspector columns (values alive at the cursor step, largest first):",
    "  value       the node whose output is held",
    "  size        its bytes (with the node's workspace as its own row)",
    "  why         input: resident all along; produced: made at this step; read: an input of",
    "              this step; held: kept for a later read; workspace: scratch of this step",
    "  produced    the step that made this copy (resident for inputs)",
    "  next read   the next step that reads this copy (end: an output kept to the end)",
    "  recomputed  whether the plan runs the node more than once, and how often",
    "Recompute columns (held values worth recomputing at the cursor step, best first):",
    "  score       bytes x idle steps / cost: memory freed per unit of extra compute",
    "  idle        steps between its last use before the cursor and its next read",
    "  inputs      held: its inputs are still alive when it is needed again (one rerun",
    "              suffices); gone: they would have to be recomputed too",
    "  plan        what the shown plan does with it: recomputes (runs N times) or keeps",
    NULL,
};

static int add(HelpLine *l, int n, int bold, const char *text)
{
    if (n >= LINES_MAX)
        return n;
    snprintf(l[n].text, sizeof l[n].text, "%.255s", text);
    l[n].bold = bold;
    return n + 1;
}

/* Word-wrap text at width w into lines indented by ind. */
static int add_wrapped(HelpLine *l, int n, const char *text, int w, int ind)
{
    char buf[1024];
    const char *p = text;
    int first = 1;
    while (*p && n < LINES_MAX) {
        int room = w - (first ? 0 : ind);
        if (room < 20)
            room = 20;
        int len = (int)strlen(p);
        int cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = room;
        }
        snprintf(buf, sizeof buf, "%*s%.*s", first ? 0 : ind, "", cut, p);
        n = add(l, n, 0, buf);
        p += cut;
        while (*p == ' ')
            p++;
        first = 0;
    }
    return n;
}

static int build(HelpLine *l, int w)
{
    int n = 0;
    char buf[1024];
    n = add(l, n, 1, "Remat Explorer keys (mouse: click the curve or the slider, drag the knob)");
    int two = w >= 90;
    int per = two ? (ACT_COUNT + 1) / 2 : ACT_COUNT;
    int colw = two ? (w - 4) / 2 : w;
    for (int r = 0; r < per; r++) {
        char left[128], right[128] = "";
        snprintf(left, sizeof left, "%-9s %s", keymap[r].label, keymap[r].help);
        if (two && r + per < ACT_COUNT)
            snprintf(right, sizeof right, "%-9s %s", keymap[r + per].label, keymap[r + per].help);
        if (two)
            snprintf(buf, sizeof buf, "%-*.*s %s", colw - 1, colw - 1, left, right);
        else
            snprintf(buf, sizeof buf, "%s", left);
        n = add(l, n, 0, buf);
    }
    n = add(l, n, 0, "");
    n = add(l, n, 1, "Views (Tab / Shift-Tab)");
    for (int v = 0; v < VIEW_COUNT; v++) {
        const ViewOps *ops = view_table[v];
        snprintf(buf, sizeof buf, "%-10s %.900s", ops->name, ops->help);
        n = add_wrapped(l, n, buf, w, 11);
        for (const ViewKey *k = ops->keys; k && k->label; k++) {
            snprintf(buf, sizeof buf, "           %-9s %.200s", k->label, k->help);
            n = add(l, n, 0, buf);
        }
    }
    n = add(l, n, 0, "");
    for (int i = 0; columns[i]; i++)
        n = add(l, n, i == 0 || columns[i][0] != ' ', columns[i]);
    return n;
}

void help_draw(Tui *t, int y, int h, int w)
{
    static HelpLine lines[LINES_MAX];
    int n = build(lines, w - 4);
    int rows = h - 1;
    if (rows < 1)
        return;
    tui_clamp_scroll(&t->help_scroll, n, rows);
    for (int r = 0; r < rows && t->help_scroll + r < n; r++) {
        const HelpLine *l = &lines[t->help_scroll + r];
        tui_put_attr(y + r, 2, w - 4, l->text, l->bold ? A_BOLD : A_NORMAL);
    }
    char foot[128];
    snprintf(foot, sizeof foot, "j/k, arrows, PgUp/PgDn scroll (lines %d-%d of %d); any other key closes",
             t->help_scroll + 1, t->help_scroll + rows < n ? t->help_scroll + rows : n, n);
    tui_put_attr(y + h - 1, 2, w - 4, foot, A_DIM);
}

Reaction help_key(Tui *t, int ch)
{
    switch (ch) {
    case 'j': case KEY_DOWN: t->help_scroll++; break;
    case 'k': case KEY_UP: if (t->help_scroll > 0) t->help_scroll--; break;
    case KEY_NPAGE: case ' ': t->help_scroll += 10; break;
    case KEY_PPAGE: t->help_scroll = t->help_scroll > 10 ? t->help_scroll - 10 : 0; break;
    default: t->mode = MODE_VIEW; return R_ALL | R_TAKEN;
    }
    return R_BODY | R_TAKEN;
}
