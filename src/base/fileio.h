/* fileio.h — reading whole files and writing strings to files, with errors
 * that name the file. */
#ifndef REMAT_FILEIO_H
#define REMAT_FILEIO_H

#include <stddef.h>
#include <stdio.h>

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

/* Write len bytes to path ("-" is stdout) through a FileTx: the file is
 * complete or untouched. ERR_IO on failure, with a one-line message naming
 * the file and the cause ("g.json: cannot write: No space left on
 * device"). */
int file_write_all(const char *path, const char *data, size_t len, Err *e);

/* An atomic replacement of one file, for writers that stream (Graphviz
 * rendering into a FILE *). file_tx_begin creates a temporary file beside
 * the target (".NAME.XXXXXX" in the same directory, created with mode 0666
 * less the umask, or with the mode, and where permitted the owner, of the
 * file it replaces); the caller writes to tx->f; file_tx_commit flushes and
 * fsyncs it, renames it over the target and fsyncs the directory. On any
 * failure (no space, permissions, a read-only file system, a short write,
 * a failing close) the temporary file is removed, the target keeps its
 * bytes, and the Err says "PATH: cannot write: CAUSE" in one line.
 *
 * Written directly, without a temporary file and so without atomicity:
 * "-" (stdout) and targets that exist and are not regular files (a FIFO,
 * /dev/null, a terminal). A symbolic link to a regular file is kept and
 * the file it points to is replaced. A target with other hard links loses
 * them (it becomes a new file), as with any rename-based save.
 *
 * A failed write is kept for the commit and never shown to the writer
 * (its later bytes are dropped): Graphviz exits the process when a write
 * fails.
 *
 * Every tx that began successfully ends in exactly one of file_tx_commit
 * or file_tx_abort; both free what the tx holds. Not shared between
 * threads; different txs may run in different threads. A process killed
 * between begin and commit leaves the target as it was and may leave the
 * temporary file behind. */
typedef struct FileTx {
    FILE *f;        /* write here (stdio buffered) */
    char *path;     /* the target as given, for messages */
    char *target;   /* the file renamed over (symbolic links resolved) */
    char *tmp;      /* the temporary file; NULL when written directly */
    int fd;         /* tmp's descriptor; -1 when written directly */
    int err;        /* errno of the first failed write, 0 when none */
    int discard;    /* set by abort: buffered bytes are dropped */
    char *buf;      /* the tx's own buffer (f is unbuffered: see fileio.c) */
    size_t used;
} FileTx;

/* ERR_OK and tx ready, or ERR_IO (directory missing or not writable, the
 * target a directory or not writable) with nothing created. */
int file_tx_begin(FileTx *tx, const char *path, Err *e);
/* ERR_OK when every byte written reached the target. ERR_IO otherwise,
 * with the target untouched (unless written directly) and no temporary
 * file left. */
int file_tx_commit(FileTx *tx, Err *e);
/* Drop everything written; the target keeps its bytes. */
void file_tx_abort(FileTx *tx);
/* Remove the temporary file of every tx still open, for a process that is
 * about to _exit with a writer it cannot wait for (a thread inside a
 * library): the targets keep their bytes and nothing partial is left.
 * Async-signal-safe. */
void file_tx_discard_open(void);

/* "DIR/STEMXXXXXX" for mkstemp/mkdtemp, DIR being $TMPDIR when it is an
 * absolute path, else /tmp; 0, or -1 when it does not fit in n. */
int file_tmp_template(char *buf, size_t n, const char *stem);

/* Fault injection (SQLite-style), for tests. The spec is "N" (the N-th
 * write(2) of any FileTx, counted from the spec's installation, and every
 * later one, fail with ENOSPC: a disk that fills up), "pause:N" (the
 * process stops for good before its N-th write, to be killed half-way), or
 * "fsync", "close" or "rename" (that step of every commit fails with EIO).
 * Writes are at most 64 KiB each, so N-1 writes put at most (N-1) * 64 KiB
 * in the temporary file. Read from the
 * environment variable REMAT_FAULT_WRITE when a tx begins, unless
 * file_fault_set installed one; file_fault_set(NULL) goes back to the
 * environment. Returns nothing; an unreadable spec injects nothing. */
void file_fault_set(const char *spec);

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
