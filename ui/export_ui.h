/* export_ui.h — the explorer's `e` key: DOT, SVG and PNG exports run as a
 * task of the session's worker (Graphviz's layout takes minutes on large
 * graphs) on copies of the plan and structure, reading the session's
 * graph, so the screen never waits; a JSON plan is written at once. */
#ifndef REMAT_EXPORT_UI_H
#define REMAT_EXPORT_UI_H

#include <stddef.h>

#include "src/session/session.h"

typedef struct ExportUi ExportUi;

ExportUi *export_ui_new(void);
/* Free after the session (whose worker holds a running export). */
void export_ui_free(ExportUi *u);
int export_ui_busy(const ExportUi *u);
/* Export the shown plan of s (the graph alone before the first plan) to
 * path, the format from its extension. Returns 1 when written at once
 * (.json), 0 when started in the background, -1 refused; msg says which. */
int export_ui_start(ExportUi *u, Session *s, const char *path, char *msg, size_t n);
/* Stop the running export (its partial file is removed); 1 when one ran. */
int export_ui_cancel(ExportUi *u, Session *s);
/* A finished export's message: 1 written, -1 failed or cancelled, 0 none. */
int export_ui_take(ExportUi *u, char *msg, size_t n);
/* "exporting x.svg (svg) 3.2s" while one runs; 0 when none. */
int export_ui_status(const ExportUi *u, Session *s, char *buf, size_t n);

#endif
