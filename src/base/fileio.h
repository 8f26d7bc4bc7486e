/* fileio.h — reading whole files and writing strings to files, with errors
 * that name the file. */
#ifndef REMAT_FILEIO_H
#define REMAT_FILEIO_H

#include <stddef.h>

#include "src/base/err.h"

/* Largest input file the loaders accept (1 GiB); beyond it they refuse
 * rather than try to hold it. */
#define FILE_MAX_BYTES ((size_t)1 << 30)

/* Read the whole file (or stdin for "-") into a NUL-terminated buffer owned
 * by the caller; *len excludes the NUL. A leading UTF-8 byte-order mark is
 * dropped. NULL and ERR_IO on failure; ERR_PARSE ("FNAME:LINE:COL: NUL
 * byte") for a NUL byte, found while reading, so binary input such as
 * /dev/zero is refused at once. More than FILE_MAX_BYTES is refused after
 * reading one byte past the limit. */
char *file_read_all(const char *path, size_t *len, Err *e);

/* Write len bytes to path ("-" is stdout). ERR_IO on failure. */
int file_write_all(const char *path, const char *data, size_t len, Err *e);

/* 1-based line and column of byte offset off in text. */
void text_line_col(const char *text, size_t off, int *line, int *col);

/* 0 when text[0..len) is valid UTF-8 without NUL bytes, else 1 + the
 * offset of the first invalid byte. */
size_t text_invalid_utf8(const char *text, size_t len);

/* ERR_OK, or ERR_PARSE with "FNAME:LINE:COL: invalid UTF-8 byte 0xNN" (or
 * "NUL byte: not a text file"). */
int text_check_utf8(const char *text, size_t len, const char *fname, Err *e);

/* s with control characters (C0, DEL, C1) replaced by '?', for printing
 * names from a file to a terminal; written into buf (n bytes, truncated),
 * which is returned. */
const char *text_safe(const char *s, char *buf, size_t n);

#endif
