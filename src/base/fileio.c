/* fileio.c — whole-file reads for the loaders and atomic whole-file
 * writes (FileTx: temporary file, fsync, rename, directory fsync) for every
 * writer, with an injectable write fault for the tests. */
#define _GNU_SOURCE     /* fopencookie: a stream whose writes the tx sees */
#include "src/base/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/base/xalloc.h"

char *file_read_all(const char *path, size_t *len, Err *e)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat sb;
    if (f != stdin && fstat(fileno(f), &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            fclose(f);
            err_set(e, ERR_IO, "%s: is a directory", path);
            return NULL;
        }
        /* refuse before reading a byte, not after filling memory */
        if (S_ISREG(sb.st_mode) && (size_t)sb.st_size > FILE_MAX_BYTES) {
            fclose(f);
            err_set(e, ERR_IO, "%s: file of %lld bytes is larger than the %zu MiB limit", path,
                    (long long)sb.st_size, FILE_MAX_BYTES >> 20);
            return NULL;
        }
    }
    /* Grow to at most one byte past the limit, so an endless stream
     * (/dev/zero, a pipe) is refused after FILE_MAX_BYTES + 1 bytes, and
     * stop at the first NUL byte: no format the project reads is binary. */
    size_t cap = 1 << 16, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            if (n > FILE_MAX_BYTES) {
                err_set(e, ERR_IO, "%s: file larger than %zu MiB; refusing to load it", path,
                        FILE_MAX_BYTES >> 20);
                goto fail;
            }
            cap = cap > FILE_MAX_BYTES / 2 ? FILE_MAX_BYTES + 2 : cap * 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        const char *nul = got ? memchr(buf + n, '\0', got) : NULL;
        n += got;
        if (nul) {
            int line, col;
            buf[n] = '\0';
            text_line_col(buf, (size_t)(nul - buf), &line, &col);
            err_set(e, ERR_PARSE, "%s:%d:%d: NUL byte: not a text file", path, line, col);
            goto fail;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        err_set(e, ERR_IO, "%s: read error", path);
        goto fail;
    }
    if (f != stdin)
        fclose(f);
    buf[n] = '\0';
    /* a UTF-8 byte-order mark is not content: every reader skips it alike */
    if (n >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
        n -= 3;
        memmove(buf, buf + 3, n + 1);
    }
    if (len)
        *len = n;
    return buf;
fail:
    free(buf);
    if (f != stdin)
        fclose(f);
    return NULL;
}

/* ---- atomic writes ------------------------------------------------------ */

#define TX_CHUNK ((size_t)1 << 16)    /* the tx's buffer and every write(2) but the last */

enum { FAULT_NONE, FAULT_WRITE, FAULT_PAUSE, FAULT_FSYNC, FAULT_CLOSE, FAULT_RENAME };

static atomic_long fault_writes;        /* write(2) calls since the spec */
static atomic_int fault_overridden;     /* file_fault_set installed a spec */
static char fault_spec[32];

void file_fault_set(const char *spec)
{
    atomic_store(&fault_overridden, 0);
    snprintf(fault_spec, sizeof fault_spec, "%s", spec ? spec : "");
    atomic_store(&fault_writes, 0);
    atomic_store(&fault_overridden, spec != NULL);
}

/* The injected fault, if any; *n the write it starts at. */
static int fault_kind(long *n)
{
    const char *s = atomic_load(&fault_overridden) ? fault_spec : getenv("REMAT_FAULT_WRITE");
    if (!s || !*s)
        return FAULT_NONE;
    if (!strcmp(s, "fsync"))
        return FAULT_FSYNC;
    if (!strcmp(s, "close"))
        return FAULT_CLOSE;
    if (!strcmp(s, "rename"))
        return FAULT_RENAME;
    int pause = !strncmp(s, "pause:", 6);
    char *end;
    long v = strtol(s + (pause ? 6 : 0), &end, 10);
    if (*end || v < 1)
        return FAULT_NONE;
    *n = v;
    return pause ? FAULT_PAUSE : FAULT_WRITE;
}

static int fault_at(int kind)
{
    long n = 0;
    return fault_kind(&n) == kind;
}

/* Counts one write(2); 1 when it is to fail. */
static int fault_write_now(void)
{
    long n = 0;
    int k = fault_kind(&n);
    long seen = atomic_fetch_add(&fault_writes, 1) + 1;
    if (k == FAULT_PAUSE && seen == n)
        for (;;)
            pause();    /* half-written, for a test to kill */
    return k == FAULT_WRITE && seen >= n;
}

/* Writes n bytes to the temporary file, at most TX_CHUNK a call (the
 * fault seam counts writes of a known size); the first errno is kept for
 * the commit and everything after it is dropped. */
static void tx_write_out(FileTx *tx, const char *buf, size_t n)
{
    size_t done = 0;
    while (done < n && !tx->err) {
        ssize_t w;
        if (fault_write_now()) {
            errno = ENOSPC;
            w = -1;
        } else {
            w = write(tx->fd, buf + done, n - done < TX_CHUNK ? n - done : TX_CHUNK);
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            tx->err = w < 0 ? errno : ENOSPC;
        else
            done += (size_t)w;
    }
}

/* The stream's sink. The stream is unbuffered and the tx buffers itself:
 * stdio then never holds bytes of ours, so fflush(NULL) on another thread
 * (src/plan/subproc.c before a fork) never calls in here, and a forked
 * child's exit never writes a copy of them into the temporary file. A
 * failure is never reported to the writer: Graphviz exits the process
 * when a write fails (gvwrite_no_z), which would end the explorer on a
 * full disk. */
static ssize_t tx_sink(void *cookie, const char *buf, size_t n)
{
    FileTx *tx = cookie;
    if (tx->discard || tx->err)
        return (ssize_t)n;
    size_t k = 0;
    while (k < n) {
        size_t room = TX_CHUNK - tx->used, m = n - k < room ? n - k : room;
        memcpy(tx->buf + tx->used, buf + k, m);
        tx->used += m;
        k += m;
        if (tx->used == TX_CHUNK) {
            tx_write_out(tx, tx->buf, tx->used);
            tx->used = 0;
        }
    }
    return (ssize_t)n;
}

static int tx_sink_close(void *cookie)
{
    (void)cookie;   /* the descriptor is closed (and checked) by the tx */
    return 0;
}

/* The temporary files being written, for an exit that cannot wait for
 * their writers (file_tx_discard_open). A slot holds the tx's own tmp
 * string. The discard claims each slot (swaps it for NULL) before it reads
 * the name; a tx whose slot was claimed never frees the name, and parks,
 * since the process is about to end. Lock-free, so the exit path never
 * waits on a writer. */
#define TX_OPEN_MAX 16
static _Atomic(char *) tx_open[TX_OPEN_MAX];
static atomic_int tx_discarding;

static void tx_open_add(char *tmp)
{
    for (int i = 0; i < TX_OPEN_MAX; i++) {
        char *none = NULL;
        if (atomic_compare_exchange_strong(&tx_open[i], &none, tmp))
            return;
    }
}

static void tx_open_remove(char *tmp)
{
    for (int i = 0; i < TX_OPEN_MAX; i++) {
        char *mine = tmp;
        if (atomic_compare_exchange_strong(&tx_open[i], &mine, NULL))
            return;
    }
    /* not found: never added (all slots taken), or claimed by the discard,
     * which may be reading the name now */
    if (atomic_load(&tx_discarding))
        for (;;)
            pause();
}

void file_tx_discard_open(void)
{
    atomic_store(&tx_discarding, 1);
    for (int i = 0; i < TX_OPEN_MAX; i++) {
        char *p = atomic_exchange(&tx_open[i], NULL);
        if (p)
            unlink(p);
    }
}

static void tx_free(FileTx *tx)
{
    if (tx->tmp)
        tx_open_remove(tx->tmp);
    free(tx->buf);
    tx->buf = NULL;
    tx->used = 0;
    free(tx->path);
    free(tx->target);
    free(tx->tmp);
    tx->path = tx->target = tx->tmp = NULL;
    tx->f = NULL;
    tx->fd = -1;
}

static int tx_fail(FileTx *tx, Err *e, int cause, const char *what)
{
    err_set(e, ERR_IO, "%s: cannot write: %s%s", tx->path, strerror(cause), what ? what : "");
    tx_free(tx);
    return ERR_IO;
}

/* A name no other writer picks: pid, a counter and the clock, mixed. */
static void tx_tmp_name(char *buf, size_t n, const char *dir, const char *base)
{
    static atomic_ulong counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
                 (atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15ULL);
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    char suf[7];
    for (int i = 0; i < 6; i++, x /= 62)
        suf[i] = al[x % 62];
    suf[6] = '\0';
    /* the name stays within NAME_MAX however long the target's is */
    snprintf(buf, n, "%s.%.200s.%s", dir, base, suf);
}

int file_tx_begin(FileTx *tx, const char *path, Err *e)
{
    memset(tx, 0, sizeof *tx);
    tx->fd = -1;
    tx->path = xstrdup(strcmp(path, "-") ? path : "stdout");
    if (!strcmp(path, "-")) {
        tx->f = stdout;
        return ERR_OK;
    }
    if (!*path)
        return tx_fail(tx, e, ENOENT, NULL);
    /* a symbolic link stays a link: the file it names is replaced */
    struct stat st;
    tx->target = NULL;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        tx->target = realpath(path, NULL);  /* NULL when dangling: the link is replaced */
    if (!tx->target)
        tx->target = xstrdup(path);
    int exists = stat(tx->target, &st) == 0;
    if (!exists && errno != ENOENT)
        return tx_fail(tx, e, errno, NULL);
    if (exists && S_ISDIR(st.st_mode)) {
        err_set(e, ERR_IO, "%s: cannot write: is a directory", tx->path);
        tx_free(tx);
        return ERR_IO;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* a FIFO, a device, a terminal: nothing to replace, write through */
        tx->f = fopen(tx->target, "wb");
        if (!tx->f)
            return tx_fail(tx, e, errno, NULL);
        return ERR_OK;
    }
    if (exists && access(tx->target, W_OK) != 0)
        return tx_fail(tx, e, errno, NULL);
    const char *slash = strrchr(tx->target, '/');
    size_t dl = slash ? (size_t)(slash - tx->target) + 1 : 0;
    char *dir = xmalloc(dl + 1);
    memcpy(dir, tx->target, dl);
    dir[dl] = '\0';
    size_t n = dl + 220;
    tx->tmp = xmalloc(n);
    for (int tries = 0;; tries++) {
        tx_tmp_name(tx->tmp, n, dir, tx->target + dl);
        tx->fd = open(tx->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (tx->fd >= 0 || errno != EEXIST || tries == 100)
            break;
    }
    if (tx->fd < 0) {
        int cause = errno;
        char what[300];
        if (dl > 1)
            dir[dl - 1] = '\0';   /* "out", not "out/" */
        snprintf(what, sizeof what, " (creating a temporary file in %s)", dl ? dir : ".");
        free(dir);
        return tx_fail(tx, e, cause, what);
    }
    free(dir);
    tx_open_add(tx->tmp);
    if (exists) {
        /* the replacement keeps the permissions (and, where permitted, the
         * owner) of the file it replaces; chown first, as it clears set-id bits */
        if (st.st_uid != geteuid() || st.st_gid != getegid())
            (void)!fchown(tx->fd, st.st_uid, st.st_gid);
        (void)!fchmod(tx->fd, st.st_mode & 07777);
    }
    cookie_io_functions_t io = {.read = NULL, .write = tx_sink, .seek = NULL, .close = tx_sink_close};
    tx->f = fopencookie(tx, "w", io);
    if (!tx->f) {
        int cause = errno;
        close(tx->fd);
        unlink(tx->tmp);
        return tx_fail(tx, e, cause, NULL);
    }
    setvbuf(tx->f, NULL, _IONBF, 0);
    tx->buf = xmalloc(TX_CHUNK);
    tx->used = 0;
    return ERR_OK;
}

void file_tx_abort(FileTx *tx)
{
    if (!tx->path)
        return;
    if (tx->tmp) {
        tx->discard = 1;
        fclose(tx->f);
        close(tx->fd);
        unlink(tx->tmp);
    } else if (tx->f && tx->f != stdout) {
        fclose(tx->f);
    } else if (tx->f) {
        fflush(tx->f);
    }
    tx_free(tx);
}

/* fsync the directory holding target, so the rename itself is durable.
 * File systems that cannot (EINVAL) count as done. */
static int sync_dir(const char *target)
{
    const char *slash = strrchr(target, '/');
    char *dir = slash ? xmalloc((size_t)(slash - target) + 2) : xstrdup(".");
    if (slash) {
        size_t dl = slash == target ? 1 : (size_t)(slash - target);
        memcpy(dir, target, dl);
        dir[dl] = '\0';
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
    free(dir);
    if (fd < 0)
        return 0;   /* not readable: nothing more to do */
    if (fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP && errno != EROFS)
        rc = errno;
    close(fd);
    return rc;
}

int file_tx_commit(FileTx *tx, Err *e)
{
    if (!tx->tmp) {
        errno = 0;
        int bad = fflush(tx->f) != 0 || ferror(tx->f);
        int cause = bad ? (errno ? errno : EIO) : 0;
        if (tx->f != stdout && fclose(tx->f) != 0 && !bad) {
            bad = 1;
            cause = errno;
        }
        if (bad)
            return tx_fail(tx, e, cause, NULL);
        tx_free(tx);
        return ERR_OK;
    }
    int cause = 0;
    if (fflush(tx->f) == 0 && !ferror(tx->f) && !tx->err && tx->used)
        tx_write_out(tx, tx->buf, tx->used);
    tx->used = 0;
    if (ferror(tx->f) || tx->err)
        cause = tx->err ? tx->err : EIO;
    else if (fault_at(FAULT_FSYNC))
        cause = EIO;
    else if (fsync(tx->fd) != 0)
        cause = errno;
    tx->discard = 1;    /* nothing is left to flush; closing writes nothing */
    fclose(tx->f);
    if (fault_at(FAULT_CLOSE)) {
        close(tx->fd);
        cause = cause ? cause : EIO;
    } else if (close(tx->fd) != 0 && !cause) {
        cause = errno;
    }
    if (!cause && fault_at(FAULT_RENAME))
        cause = EIO;
    else if (!cause && rename(tx->tmp, tx->target) != 0)
        cause = errno;
    if (cause) {
        unlink(tx->tmp);
        return tx_fail(tx, e, cause, NULL);
    }
    int dc = sync_dir(tx->target);
    if (dc) {
        err_set(e, ERR_IO, "%s: written, but its directory could not be synced: %s", tx->path,
                strerror(dc));
        tx_free(tx);
        return ERR_IO;
    }
    tx_free(tx);
    return ERR_OK;
}

int file_tmp_template(char *buf, size_t n, const char *stem)
{
    const char *d = getenv("TMPDIR");
    if (!d || d[0] != '/')
        d = "/tmp";
    int k = snprintf(buf, n, "%s%s%sXXXXXX", d, d[strlen(d) - 1] == '/' ? "" : "/", stem);
    return k < 0 || (size_t)k >= n ? -1 : 0;
}

int file_write_all(const char *path, const char *data, size_t len, Err *e)
{
    FileTx tx;
    int rc = file_tx_begin(&tx, path, e);
    if (rc)
        return rc;
    fwrite(data, 1, len, tx.f);  /* a short write is seen by the commit */
    return file_tx_commit(&tx, e);
}

void text_line_col(const char *text, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

size_t text_invalid_utf8(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        int n;
        unsigned min;
        if (c == 0) {
            return i + 1;
        } else if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            n = 1;
            min = 0x80;
            c &= 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2;
            min = 0x800;
            c &= 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            n = 3;
            min = 0x10000;
            c &= 0x07;
        } else {
            return i + 1;
        }
        for (int k = 1; k <= n; k++) {
            if (i + (size_t)k >= len || (s[i + k] & 0xc0) != 0x80)
                return i + 1;
            c = (c << 6) | (s[i + k] & 0x3f);
        }
        /* overlong forms, surrogates and code points past U+10FFFF */
        if (c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
            return i + 1;
        i += (size_t)n + 1;
    }
    return 0;
}

int text_check_utf8(const char *text, size_t len, const char *fname, Err *e)
{
    size_t bad = text_invalid_utf8(text, len);
    if (!bad)
        return ERR_OK;
    int line, col;
    text_line_col(text, bad - 1, &line, &col);
    if (text[bad - 1] == '\0')
        return err_set(e, ERR_PARSE, "%s:%d:%d: NUL byte: not a text file", fname, line, col);
    return err_set(e, ERR_PARSE, "%s:%d:%d: invalid UTF-8 byte 0x%02x", fname, line, col,
                   (unsigned char)text[bad - 1]);
}

const char *text_safe(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    if (!n)
        return "";
    for (; *s && k + 1 < n; s++) {
        unsigned char c = (unsigned char)*s;
        /* C0 controls, DEL, and C1 controls (U+0080..U+009F, bytes C2 80..9F) */
        if (c < 0x20 || c == 0x7f) {
            buf[k++] = '?';
        } else if (c == 0xc2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f) {
            buf[k++] = '?';
            s++;
        } else {
            buf[k++] = (char)c;
        }
    }
    buf[k] = '\0';
    return buf;
}
