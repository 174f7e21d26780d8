// SPDX-License-Identifier: GPL-2.0
/*
 * fail_function: error injection through a kprobe on a function of the
 * error-injection list, from /sys/kernel/debug/fail_function/.
 *
 *   1. the getppid() syscall's own entry (every SYSCALL_DEFINE is an
 *      ERRNO-type entry: __arm64_sys_getppid on arm64; x86 lists its
 *      __x64_sys_getppid under the alias __do_sys_getppid): getppid()
 *      fails with the injected errno;
 *   2. __filemap_add_folio(), which a write() to a new ramfs file reaches
 *      (simple_write_begin() turns its failure into -ENOMEM): the write
 *      fails with ENOMEM.
 *
 * The task filter limits both to this task; each is removed afterwards and
 * the call succeeds again.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include "guest.h"

#define FF DEBUGFS "/fail_function"

/* The name in "injectable" ending in @suffix, of error type ERRNO. */
static char *find_injectable(const char *suffix)
{
	char *inj = read_file(FF "/injectable");
	char *line, *save = NULL, *found = NULL;

	for (line = inj ? strtok_r(inj, "\n", &save) : NULL; line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[128], type[32];
		size_t n, s = strlen(suffix);

		if (sscanf(line, "%127s %31s", name, type) != 2 ||
		    strcmp(type, "ERRNO"))
			continue;
		n = strlen(name);
		if (n >= s && !strcmp(name + n - s, suffix) &&
		    (n == s || name[n - s - 1] == '_'))
			found = strdup(name);
	}
	free(inj);
	return found;
}

static int inject(const char *func, int err)
{
	char path[256], val[32];

	if (write_file(FF "/inject", func, 0))
		return -1;
	snprintf(path, sizeof(path), FF "/%s/retval", func);
	snprintf(val, sizeof(val), "%#lx", (unsigned long)(long)-err);
	if (write_file(path, val, 0))
		return -1;
	/* verbose=0: a forced failure must not dump a stack on the console */
	if (write_file(FF "/verbose", "0", 0) ||
	    write_file(FF "/task-filter", "Y", 0) ||
	    write_file(FF "/probability", "100", 0) ||
	    write_file(FF "/interval", "1", 0) ||
	    write_file(FF "/times", "-1", 0) ||
	    write_file(FF "/space", "0", 0))
		return -1;
	return 0;
}

static void uninject(const char *func)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "!%s", func);
	write_file(FF "/inject", cmd, 0);
}

static void make_it_fail(int on)
{
	write_file("/proc/self/make-it-fail", on ? "1" : "0", 0);
}

static void show_kprobes_list(void)
{
	char *list = read_file(DEBUGFS "/kprobes/list");

	note("kprobes/list while injecting:\n%s", list ? list : "(none)");
	free(list);
}

#if defined(__x86_64__)
#define SYS_GETPPID "x64_sys_getppid"
#elif defined(__aarch64__)
#define SYS_GETPPID "arm64_sys_getppid"
#else
#error "unknown architecture"
#endif

static void syscall_entry(void)
{
	/* The arch's syscall entry, or any other alias on the list */
	char *func = find_injectable(SYS_GETPPID) ?: find_injectable("sys_getppid");
	long r;
	int e;

	if (!check(func != NULL, "fail_function-syscall-injectable (%s)",
		   func ? func : "no *sys_getppid"))
		return;
	if (!check(inject(func, EXDEV) == 0, "fail_function-inject-%s", func)) {
		free(func);
		return;
	}
	show_kprobes_list();

	make_it_fail(0);
	r = syscall(SYS_getppid);
	check(r > 0, "fail_function-task-filter-spares-others (getppid = %ld)", r);
	make_it_fail(1);
	errno = 0;
	r = syscall(SYS_getppid);
	e = errno;
	make_it_fail(0);
	check(r == -1 && e == EXDEV, "fail_function-syscall-fails-with-errno (getppid = %ld, %s)",
	      r, strerror(e));

	uninject(func);
	make_it_fail(1);
	r = syscall(SYS_getppid);
	make_it_fail(0);
	check(r > 0, "fail_function-removed-syscall-succeeds (getppid = %ld)", r);
	free(func);
}

static ssize_t write_new_file(const char *path)
{
	char buf[64] = "kpt";
	ssize_t n;
	int fd, e;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, sizeof(buf));
	e = errno;
	close(fd);
	return n < 0 ? -e : n;
}

static void page_cache(void)
{
	const char *func = "__filemap_add_folio", *dir = "/tmp/kpt-ramfs";
	char path[64];
	ssize_t n;

	if (!check(find_injectable(func) != NULL, "fail_function-filemap-injectable (%s)", func))
		return;
	mkdir(dir, 0755);
	if (!check(mount("ramfs", dir, "ramfs", 0, NULL) == 0, "fail_function-ramfs-mounted"))
		return;
	snprintf(path, sizeof(path), "%s/file", dir);
	if (check(inject(func, ENOMEM) == 0, "fail_function-inject-%s", func)) {
		make_it_fail(1);
		n = write_new_file(path);
		make_it_fail(0);
		check(n == -ENOMEM, "fail_function-write-fails-with-ENOMEM (write = %s)",
		      n < 0 ? strerror(-n) : "ok");
		uninject(func);
	}
	make_it_fail(1);
	n = write_new_file(path);
	make_it_fail(0);
	check(n == 64, "fail_function-removed-write-succeeds (write = %zd)", n);
	umount(dir);
}

int main(void)
{
	if (!check(file_exists(FF "/inject"), "fail_function-present"))
		return finish();
	write_file(FF "/inject", "", 0);
	syscall_entry();
	page_cache();
	write_file(FF "/inject", "", 0);
	return finish();
}
