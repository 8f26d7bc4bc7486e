/* fileio.c — whole-file reads and writes for the loaders and the CLI. */
#include "src/base/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int file_write_all(const char *path, const char *data, size_t len, Err *e)
{
    int to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "wb");
    if (!f)
        return err_set(e, ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    size_t put = fwrite(data, 1, len, f);
    int bad = put != len;
    if (to_stdout)
        bad |= fflush(f) != 0;
    else
        bad |= fclose(f) != 0;
    if (bad)
        return err_set(e, ERR_IO, "%s: write failed", path);
    return ERR_OK;
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
