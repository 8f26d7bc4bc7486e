/* export_ui.h — the explorer's `e` key: DOT, SVG and PNG exports run in a
 * background thread (Graphviz's layout takes minutes on large graphs), on
 * copies of the graph, plan and structure, so the screen never waits; a
 * JSON plan is written at once. */
#ifndef REMAT_EXPORT_UI_H
#define REMAT_EXPORT_UI_H

#include <stddef.h>

#include "src/session/session.h"

typedef struct ExportUi ExportUi;

ExportUi *export_ui_new(void);
/* An export still running is left to finish or die with the process. */
void export_ui_free(ExportUi *u);
int export_ui_fd(const ExportUi *u);
int export_ui_busy(const ExportUi *u);
/* Export the shown plan of s (the graph alone before the first plan) to
 * path, the format from its extension. Returns 1 when written at once
 * (.json), 0 when started in the background, -1 refused; msg says which. */
int export_ui_start(ExportUi *u, Session *s, const char *path, char *msg, size_t n);
/* Collect a finished export: 1 written, -1 failed (msg says), 0 nothing. */
int export_ui_tick(ExportUi *u, char *msg, size_t n);
/* "exporting x.svg (svg) 3.2s" while one runs; 0 when none. */
int export_ui_status(const ExportUi *u, char *buf, size_t n);

#endif
