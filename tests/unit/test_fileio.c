/* test_fileio.c — atomic writes (src/base/fileio.h's FileTx and
 * file_write_all): a new file and a replaced one are complete, keep the
 * old file's permissions, and leave no temporary file; every injected
 * fault (the N-th write, fsync, close, rename) and every refused target
 * leaves the old bytes and no temporary file, with a one-line error that
 * names the file and the cause; a forked child never writes a tx's bytes. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "src/base/fileio.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/remat-test-fileio-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    file_fault_set("");     /* no fault, whatever the environment says */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    file_fault_set(NULL);
    DIR *d = opendir(dir);
    struct dirent *de;
    char p[512];
    while (d && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    return 0;
}

static const char *at(const char *name)
{
    static char p[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

/* Entries of the test directory: the count, and (into names) their names. */
static int entries(char *names, size_t n)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int c = 0;
    struct dirent *de;
    names[0] = '\0';
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        c++;
        strncat(names, de->d_name, n - strlen(names) - 2);
        strncat(names, " ", n - strlen(names) - 1);
    }
    closedir(d);
    return c;
}

static char *slurp(const char *path, size_t *len)
{
    Err e;
    err_clear(&e);
    char *s = file_read_all(path, len, &e);
    if (!s)
        fail_msg("%s", e.msg);
    return s;
}

static void assert_bytes(const char *path, const char *want)
{
    size_t len;
    char *s = slurp(path, &len);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(s, want, len);
    free(s);
}

/* A big payload: several stdio buffers' worth, so faults hit mid-file. */
static char *payload(size_t n, char c)
{
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = (char)(i % 61 == 60 ? '\n' : c + (char)(i % 7));
    s[n] = '\0';
    return s;
}

static void test_new_and_replace(void **state)
{
    (void)state;
    Err e;
    err_clear(&e);
    char names[512];
    assert_int_equal(file_write_all(at("a.json"), "one\n", 4, &e), ERR_OK);
    assert_bytes(at("a.json"), "one\n");
    /* a new file gets 0666 less the umask, as fopen would give it */
    mode_t um = umask(022);
    umask(um);
    struct stat st;
    assert_int_equal(stat(at("a.json"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~um);
    /* replacing keeps the old file's mode */
    chmod(at("a.json"), 0640);
    char *big = payload(300000, 'a');
    assert_int_equal(file_write_all(at("a.json"), big, strlen(big), &e), ERR_OK);
    assert_bytes(at("a.json"), big);
    assert_int_equal(stat(at("a.json"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    assert_int_equal(entries(names, sizeof names), 1);
    free(big);
}

/* Every fault: the old bytes stay, nothing else is left, one line names
 * the file and the cause. */
static void check_fault(const char *spec, const char *cause)
{
    Err e;
    err_clear(&e);
    char names[512];
    assert_int_equal(file_write_all(at("t.json"), "old bytes\n", 10, &e), ERR_OK);
    char *big = payload(200000, 'k');
    file_fault_set(spec);
    int rc = file_write_all(at("t.json"), big, strlen(big), &e);
    file_fault_set("");
    assert_int_equal(rc, ERR_IO);
    assert_bytes(at("t.json"), "old bytes\n");
    int n = entries(names, sizeof names);
    if (n != 1)
        fail_msg("fault %s left files behind: %s", spec, names);
    char want[600];
    snprintf(want, sizeof want, "%s: cannot write: %s", at("t.json"), cause);
    assert_string_equal(e.msg, want);
    assert_null(strchr(e.msg, '\n'));
    /* and a new target is not created at all */
    file_fault_set(spec);
    rc = file_write_all(at("new.json"), big, strlen(big), &e);
    file_fault_set("");
    assert_int_equal(rc, ERR_IO);
    assert_int_equal(access(at("new.json"), F_OK), -1);
    assert_int_equal(entries(names, sizeof names), 1);
    free(big);
}

static void test_fault_first_write(void **state)
{
    (void)state;
    check_fault("1", strerror(ENOSPC));
}

static void test_fault_mid_file(void **state)
{
    (void)state;
    check_fault("3", strerror(ENOSPC));    /* the disk fills after two buffers */
}

static void test_fault_fsync(void **state)
{
    (void)state;
    check_fault("fsync", strerror(EIO));
}

static void test_fault_close(void **state)
{
    (void)state;
    check_fault("close", strerror(EIO));
}

static void test_fault_rename(void **state)
{
    (void)state;
    check_fault("rename", strerror(EIO));
}

/* The environment variable is the same seam for the command-line tests. */
static void test_fault_from_environment(void **state)
{
    (void)state;
    Err e;
    err_clear(&e);
    assert_int_equal(file_write_all(at("env.json"), "kept", 4, &e), ERR_OK);
    file_fault_set(NULL);
    setenv("REMAT_FAULT_WRITE", "1", 1);
    int rc = file_write_all(at("env.json"), "lost", 4, &e);
    unsetenv("REMAT_FAULT_WRITE");
    file_fault_set("");
    assert_int_equal(rc, ERR_IO);
    assert_bytes(at("env.json"), "kept");
}

/* A streaming writer: many small writes, then abort or commit. */
static void test_stream_abort_and_commit(void **state)
{
    (void)state;
    Err e;
    err_clear(&e);
    char names[512];
    assert_int_equal(file_write_all(at("s.svg"), "old", 3, &e), ERR_OK);
    FileTx tx;
    assert_int_equal(file_tx_begin(&tx, at("s.svg"), &e), ERR_OK);
    for (int i = 0; i < 20000; i++)
        fprintf(tx.f, "<line %d/>\n", i);
    assert_int_equal(entries(names, sizeof names), 2);    /* the target and its temporary */
    file_tx_abort(&tx);
    assert_bytes(at("s.svg"), "old");
    assert_int_equal(entries(names, sizeof names), 1);
    assert_int_equal(file_tx_begin(&tx, at("s.svg"), &e), ERR_OK);
    fputs("new", tx.f);
    assert_int_equal(file_tx_commit(&tx, &e), ERR_OK);
    assert_bytes(at("s.svg"), "new");
    assert_int_equal(entries(names, sizeof names), 1);
}

/* A child forked while a tx has bytes pending (the MILP engines fork
 * while an export streams on another thread) exits through stdio's
 * flush-everything: none of the tx's bytes may reach the file twice. */
static void test_fork_writes_nothing(void **state)
{
    (void)state;
    Err e;
    err_clear(&e);
    FileTx tx;
    assert_int_equal(file_tx_begin(&tx, at("f.svg"), &e), ERR_OK);
    fputs("pending bytes\n", tx.f);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        fflush(NULL);
        exit(0);    /* flushes every stream again */
    }
    int st;
    waitpid(pid, &st, 0);
    fflush(NULL);   /* another thread's fflush(NULL) before its fork */
    fputs("more\n", tx.f);
    assert_int_equal(file_tx_commit(&tx, &e), ERR_OK);
    assert_bytes(at("f.svg"), "pending bytes\nmore\n");
}

/* The exit path of a process that cannot wait for its writers (a signal,
 * the explorer quitting during a render): every open tx's temporary file
 * goes, the targets keep their bytes, a tx committed before is untouched.
 * In a child, since a process that discarded parks any tx that ends later. */
static void test_discard_open(void **state)
{
    (void)state;
    Err e;
    err_clear(&e);
    char names[512];
    assert_int_equal(file_write_all(at("old.json"), "old", 3, &e), ERR_OK);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FileTx a, b;
        if (file_tx_begin(&a, at("old.json"), &e) || file_tx_begin(&b, at("new.json"), &e))
            _exit(2);
        fputs("half of a new graph", a.f);
        fputs("half of another", b.f);
        if (file_write_all(at("done.json"), "done", 4, &e))
            _exit(3);
        file_tx_discard_open();
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_bytes(at("old.json"), "old");
    assert_bytes(at("done.json"), "done");
    assert_int_equal(entries(names, sizeof names), 2);  /* no new.json, no temporary */
}

static void test_refused_targets(void **state)
{
    (void)state;
    Err e;
    err_clear(&e);
    char want[600];
    /* a directory */
    assert_int_equal(file_write_all(dir, "x", 1, &e), ERR_IO);
    snprintf(want, sizeof want, "%s: cannot write: is a directory", dir);
    assert_string_equal(e.msg, want);
    /* a missing directory: the cause, and where the temporary file was to go */
    assert_int_equal(file_write_all(at("no/such.json"), "x", 1, &e), ERR_IO);
    snprintf(want, sizeof want, "%s: cannot write: %s (creating a temporary file in %s/no)",
             at("no/such.json"), strerror(ENOENT), dir);
    assert_string_equal(e.msg, want);
    /* an empty name */
    assert_int_equal(file_write_all("", "x", 1, &e), ERR_IO);
    assert_non_null(strstr(e.msg, strerror(ENOENT)));
}

/* A symbolic link stays a link; the file it names is replaced. */
static void test_symlink_kept(void **state)
{
    (void)state;
    Err e;
    err_clear(&e);
    assert_int_equal(file_write_all(at("real.json"), "v1", 2, &e), ERR_OK);
    assert_int_equal(symlink("real.json", at("link.json")), 0);
    assert_int_equal(file_write_all(at("link.json"), "v2", 2, &e), ERR_OK);
    struct stat st;
    assert_int_equal(lstat(at("link.json"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_bytes(at("real.json"), "v2");
}

/* Not regular files: written through, never replaced by a rename. */
static void test_device_written_through(void **state)
{
    (void)state;
    Err e;
    err_clear(&e);
    assert_int_equal(file_write_all("/dev/null", "x", 1, &e), ERR_OK);
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_new_and_replace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_first_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_mid_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_fsync, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_close, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_rename, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_from_environment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_abort_and_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fork_writes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_discard_open, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_targets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_device_written_through, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
