// SPDX-License-Identifier: GPL-2.0
/*
 * Probe every function: a kprobe (or kretprobe) through kprobe_events on
 * every function of the kernel's text that is not blacklisted, armed a
 * chunk at a time with a workload for each chunk, then all removed.
 *
 *   every_function p|r [FIRST [LAST [STEP [CHUNK [list]]]]]
 *
 * The candidates are the kernel's (not the modules') text symbols of
 * /proc/kallsyms, by address, without duplicates, only those in
 * [_stext, _etext) (not init and exit text, freed after boot, nor the
 * markers at the end), and without what
 * /sys/kernel/debug/kprobes/blacklist covers.  FIRST and LAST select
 * candidates by index (LAST excluded; the host bisects with them), STEP
 * takes every STEP-th one (for kretprobes on a few thousand).  Each one
 * is registered by address, one write() each, so that each refusal has
 * its errno; then the registered ones are enabled CHUNK at a time (0: all
 * at once), and for each chunk the workload runs (fork and exec, file
 * I/O, pipes, a loopback TCP connection if the kernel has one, a module
 * load and unload) before the chunk is disabled again; at the end all
 * are removed.  Before arming, kprobes/list must list exactly the
 * registered probes; with "list", that is all it checks before removing
 * them (make check's probes at scale on the kernel's own functions).
 *
 * Prints "guest-check: ok/not ok" lines, statistics, and one line per
 * refusal "guest-everyfn-refused: MODE ERRNO ADDR SYMBOL" for the host to
 * judge (harness/every-function.sh decodes the refused instructions).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include "guest.h"

#define KE TRACEFS "/kprobe_events"
#define BLACKLIST DEBUGFS "/kprobes/blacklist"
#define LIST DEBUGFS "/kprobes/list"

struct sym {
	unsigned long addr;
	char *name;
	int err;
};

struct range {
	unsigned long start, end;
};

static struct sym *syms;
static size_t nr_syms;
static struct range *bl;
static size_t nr_bl;

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void read_blacklist(void)
{
	char *s = read_file(BLACKLIST), *line, *save = NULL;
	size_t cap = 0;

	if (!s)
		return;
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long start, end;

		if (sscanf(line, "0x%lx-0x%lx", &start, &end) != 2)
			continue;
		if (nr_bl == cap) {
			cap = cap ? 2 * cap : 1024;
			bl = realloc(bl, cap * sizeof(*bl));
		}
		bl[nr_bl++] = (struct range){ start, end };
	}
	free(s);
	qsort(bl, nr_bl, sizeof(*bl), cmp_range);
}

static int blacklisted(unsigned long addr)
{
	size_t i;

	/* Ranges may overlap: a linear walk over a sorted list, stopping early */
	for (i = 0; i < nr_bl && bl[i].start <= addr; i++)
		if (addr < bl[i].end)
			return 1;
	return 0;
}

/* The candidates, and how many were left out, by reason */
static void read_symbols(void)
{
	unsigned long stext = 0, etext = 0;
	size_t cap = 0, i, j, nr_bl_syms = 0, nr_out = 0, nr_dup = 0;
	char *s = read_file("/proc/kallsyms"), *line, *save = NULL;

	if (!s) {
		check(0, "everyfn-kallsyms-readable");
		exit(1);
	}
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long addr;
		char type, name[256];

		if (sscanf(line, "%lx %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_stext"))
			stext = addr;
		if (!strcmp(name, "_etext"))
			etext = addr;
		if ((type != 't' && type != 'T') || strchr(line, '['))
			continue;
		if (nr_syms == cap) {
			cap = cap ? 2 * cap : 65536;
			syms = realloc(syms, cap * sizeof(*syms));
		}
		syms[nr_syms++] = (struct sym){ addr, strdup(name), 0 };
	}
	free(s);
	qsort(syms, nr_syms, sizeof(*syms), cmp_sym);
	for (i = j = 0; i < nr_syms; i++) {
		if (j && syms[j - 1].addr == syms[i].addr) {
			nr_dup++;
			continue;
		}
		/*
		 * Init and exit text (freed after boot) and the markers
		 * at the end of the text are not the kernel's text.
		 */
		if (syms[i].addr < stext || syms[i].addr >= etext) {
			nr_out++;
			continue;
		}
		if (blacklisted(syms[i].addr)) {
			nr_bl_syms++;
			continue;
		}
		syms[j++] = syms[i];
	}
	note("everyfn: %zu kernel text symbols: %zu aliases, %zu outside [_stext, _etext) (init and exit text), %zu blacklisted left out; %zu candidates",
	     nr_syms, nr_dup, nr_out, nr_bl_syms, j);
	nr_syms = j;
}

static const char *errname(int err)
{
	switch (err) {
	case EINVAL: return "EINVAL";
	case EILSEQ: return "EILSEQ";
	case EBUSY: return "EBUSY";
	case ENOENT: return "ENOENT";
	case ENOMEM: return "ENOMEM";
	case EEXIST: return "EEXIST";
	case ERANGE: return "ERANGE";
	case EFAULT: return "EFAULT";
	case ENOSPC: return "ENOSPC";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	}
	return "other";
}

static void run(const char *const argv[])
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		/* Their output is of no interest, and long (ls -l) */
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
}

static int workload_files(void)
{
	char buf[4096], path[] = "/tmp/everyfn-XXXXXX";
	int fd = mkstemp(path), i, ok = 1;

	if (fd < 0)
		return 0;
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < 64; i++)
		ok &= write(fd, buf, sizeof(buf)) == sizeof(buf);
	fsync(fd);
	lseek(fd, 0, SEEK_SET);
	for (i = 0; i < 64; i++)
		ok &= read(fd, buf, sizeof(buf)) == sizeof(buf) && buf[17] == 'x';
	close(fd);
	ok &= unlink(path) == 0;
	return ok;
}

static int workload_pipe(void)
{
	int fds[2], i, ok = 1, status;
	char buf[512];
	pid_t pid;

	if (pipe(fds))
		return 0;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		memset(buf, 'p', sizeof(buf));
		for (i = 0; i < 100; i++)
			if (write(fds[1], buf, sizeof(buf)) != sizeof(buf))
				_exit(1);
		_exit(0);
	}
	close(fds[1]);
	for (i = 0; i < 100; i++) {
		ssize_t got = 0, n;

		while (got < (ssize_t)sizeof(buf) &&
		       (n = read(fds[0], buf + got, sizeof(buf) - got)) > 0)
			got += n;
		ok &= got == sizeof(buf) && buf[100] == 'p';
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	return ok && WIFEXITED(status) && !WEXITSTATUS(status);
}

/* 1 if a loopback TCP connection carried the data, 0 if not, -1 no TCP */
static int workload_tcp(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int l, c, a, ok = 1, i;
	char buf[1000];

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0)
		return -1;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&sa, &len)) {
		close(l);
		return 0;
	}
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof(sa))) {
		close(l);
		return 0;
	}
	a = accept(l, NULL, NULL);
	for (i = 0; i < 20 && a >= 0; i++) {
		ssize_t got = 0, n;

		memset(buf, 'a' + i, sizeof(buf));
		ok &= send(c, buf, sizeof(buf), 0) == sizeof(buf);
		memset(buf, 0, sizeof(buf));
		while (got < (ssize_t)sizeof(buf) &&
		       (n = recv(a, buf + got, sizeof(buf) - got, 0)) > 0)
			got += n;
		ok &= got == sizeof(buf) && buf[999] == 'a' + i;
	}
	close(c);
	if (a >= 0)
		close(a);
	close(l);
	return ok && a >= 0;
}

static void workload(void)
{
	static const char *const sh_true[] = { "/bin/sh", "-c", "true", NULL };
	static const char *const ls[] = { "/bin/ls", "-l", "/proc/self/", NULL };
	static const char *const insmod[] = { "/bin/insmod",
		"/modules/kprobe_target.ko", NULL };
	static const char *const rmmod[] = { "/bin/rmmod", "kprobe_target", NULL };
	double t = now();
	int i, tcp;

	for (i = 0; i < 10; i++)
		run(sh_true);
	run(ls);
	check(workload_files(), "everyfn-workload-file-io");
	check(workload_pipe(), "everyfn-workload-pipe");
	tcp = workload_tcp();
	if (tcp < 0)
		note("everyfn: no TCP in this kernel, no loopback connection");
	else
		check(tcp, "everyfn-workload-loopback-tcp");
	if (file_exists("/modules/kprobe_target.ko")) {
		run(insmod);
		check(file_exists("/sys/module/kprobe_target"),
		      "everyfn-workload-module-loads");
		run(rmmod);
		check(!file_exists("/sys/module/kprobe_target"),
		      "everyfn-workload-module-unloads");
	}
	usleep(100000);
	note("everyfn: workload took %.1f s", now() - t);
}

/*
 * The events of kprobe_profile that were hit, and all misses.  It names
 * events without their group: ours are "e<index>", and the only ones
 * while a mode runs (the other mode's are removed before).
 */
static void profile(size_t *hit, unsigned long long *missed)
{
	char *s = read_file(TRACEFS "/kprobe_profile"), *line, *save = NULL;

	*hit = 0;
	*missed = 0;
	if (!s)
		return;
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long h, m;
		size_t idx;

		if (sscanf(line, " e%zu %llu %llu", &idx, &h, &m) != 3)
			continue;
		*hit += h > 0;
		*missed += m;
	}
	free(s);
}

/* Lines of @path (containing @needle, if not NULL) */
static size_t count_lines(const char *path, const char *needle)
{
	char *s = read_file(path), *line, *save = NULL;
	size_t n = 0;

	if (!s)
		return 0;
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		n += !needle || strstr(line, needle);
	free(s);
	return n;
}

/* The candidate a probe at @addr belongs to (at most 16 bytes past it) */
static struct sym *sym_of(unsigned long addr)
{
	size_t lo = 0, hi = nr_syms;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (!nr_syms || syms[lo].addr > addr || addr - syms[lo].addr > 16)
		return NULL;
	return &syms[lo];
}

/*
 * kprobes/list must list exactly the probes registered: each of them
 * once (at its function, or just past an ENDBR), and nothing else.  The
 * lines begin with the address, which root sees.
 */
static void check_list_exact(const char *mode, size_t first, size_t last,
			     size_t step, size_t ok)
{
	char *s = read_file(LIST), *line, *save = NULL;
	size_t i, lines = 0, twice = 0, foreign = 0, missing = 0;
	unsigned char *seen = calloc(nr_syms, 1);

	if (!s || !seen) {
		check(0, "everyfn-%s-list-exact (cannot read kprobes/list)", mode);
		return;
	}
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct sym *sym = sym_of(strtoul(line, NULL, 16));

		lines++;
		i = sym ? (size_t)(sym - syms) : 0;
		if (!sym || i < first || i >= last || (i - first) % step ||
		    sym->err) {
			if (foreign++ < 5)
				note("everyfn: %s: not registered, but listed: %s",
				     mode, line);
			continue;
		}
		if (seen[i]++)
			twice++;
	}
	for (i = first; i < last; i += step) {
		if (syms[i].err || seen[i])
			continue;
		if (missing++ < 5)
			note("everyfn: %s: registered, but not listed: 0x%lx %s",
			     mode, syms[i].addr, syms[i].name);
	}
	note("everyfn: %s: kprobes/list: %zu lines for %zu probes: %zu missing, %zu listed twice, %zu not ours",
	     mode, lines, ok, missing, twice, foreign);
	check(lines == ok && !missing && !twice && !foreign,
	      "everyfn-%s-list-exact", mode);
	free(seen);
	free(s);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "p";
	size_t first = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	size_t last = argc > 3 ? strtoul(argv[3], NULL, 0) : (size_t)-1;
	size_t step = argc > 4 ? strtoul(argv[4], NULL, 0) : 1;
	size_t chunk = argc > 5 ? strtoul(argv[5], NULL, 0) : 0;
	/* "list": register, check kprobes/list, remove; nothing is armed */
	int list_only = argc > 6 && !strcmp(argv[6], "list");
	const char *grp = *mode == 'r' ? "efr" : "ef";
	size_t i, tried = 0, ok = 0, hit, listed, disabled, by[6] = { 0 };
	size_t c, n, failed_enable = 0, failed_disable = 0, not_armed = 0;
	double t_enable = 0, t_work = 0, t_disable = 0;
	unsigned long long missed;
	char line[128], path[128];
	double t;
	int fd, err;

	if (step < 1)
		step = 1;
	if (chunk < 1)
		chunk = (size_t)-1;
	mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	read_blacklist();
	check(nr_bl > 0, "everyfn-blacklist-read");
	read_symbols();
	if (last > nr_syms)
		last = nr_syms;
	note("everyfn: %s on candidates [%zu, %zu) step %zu", mode, first, last, step);
	/* A small slice is what a bisection ends with: name the suspects. */
	for (i = first; last - first <= 16 && i < last; i += step)
		note("everyfn: candidate %zu: 0x%lx %s", i, syms[i].addr, syms[i].name);

	t = now();
	fd = open(KE, O_WRONLY | O_APPEND);
	if (fd < 0) {
		check(0, "everyfn-%s-kprobe-events-open", mode);
		return finish();
	}
	for (i = first; i < last; i += step) {
		int len = snprintf(line, sizeof(line), "%s:%s/e%zu 0x%lx\n",
				   mode, grp, i, syms[i].addr);

		tried++;
		syms[i].err = write(fd, line, len) == len ? 0 : errno;
		if (!syms[i].err) {
			ok++;
			continue;
		}
		printf("guest-everyfn-refused: %s %s 0x%lx %s\n", mode,
		       errname(syms[i].err), syms[i].addr, syms[i].name);
	}
	close(fd);
	fflush(stdout);
	note("everyfn: %s: %zu tried, %zu registered, %zu refused in %.1f s",
	     mode, tried, ok, tried - ok, now() - t);
	for (i = first; i < last; i += step) {
		switch (syms[i].err) {
		case 0:
			break;
		case EBUSY:
			by[0]++;
			break;
		case EILSEQ:
			by[1]++;
			break;
		case EINVAL:
			by[2]++;
			break;
		case ENOENT:
			by[3]++;
			break;
		case ENOMEM:
			by[4]++;
			break;
		default:
			by[5]++;
			break;
		}
	}
	note("everyfn: %s refusals: EBUSY %zu, EILSEQ %zu, EINVAL %zu, ENOENT %zu, ENOMEM %zu, other %zu",
	     mode, by[0], by[1], by[2], by[3], by[4], by[5]);
	check(by[4] == 0 && by[5] == 0, "everyfn-%s-no-enomem-or-odd-errno", mode);
	if (!ok)
		return finish();
	check_list_exact(mode, first, last, step, ok);
	if (list_only)
		goto remove;

	/*
	 * Arm them a chunk at a time, a workload for each chunk.  With all
	 * of them armed at once, every function the kernel calls traps, and
	 * so does every function the trace handler calls (a nested hit,
	 * replayed without handlers): under QEMU's TCG the timer tick alone
	 * then takes longer than the tick period, and the guest makes no
	 * progress.
	 */
	for (c = 0; c < ok; c += n) {
		size_t idx[2] = { 0, 0 }, k = 0;
		double ten = 0, tw, tdis;

		t = now();
		for (i = first, n = 0; i < last; i += step) {
			if (syms[i].err)
				continue;
			if (k++ < c)
				continue;
			if (n == chunk)
				break;
			if (!n)
				idx[0] = i;
			idx[1] = i;
			n++;
			snprintf(path, sizeof(path), TRACEFS "/events/%s/e%zu/enable", grp, i);
			err = write_file(path, "1", 0);
			if (err)
				failed_enable++;
		}
		ten = now() - t;
		listed = count_lines(LIST, NULL);
		disabled = count_lines(LIST, "[DISABLED]");
		note("everyfn: %s: chunk [%zu, %zu]: %zu probes enabled in %.1f s; kprobes/list: %zu probes, %zu disabled",
		     mode, idx[0], idx[1], n, ten, listed, disabled);
		if (listed != ok || disabled != ok - n) {
			not_armed++;
			note("everyfn: %s: chunk [%zu, %zu]: %zu armed, expected %zu",
			     mode, idx[0], idx[1], listed - disabled, n);
		}
		t_enable += ten;

		tw = now();
		workload();
		tw = now() - tw;
		t_work += tw;

		t = now();
		for (i = idx[0]; i <= idx[1]; i += step) {
			if (syms[i].err)
				continue;
			snprintf(path, sizeof(path), TRACEFS "/events/%s/e%zu/enable", grp, i);
			err = write_file(path, "0", 0);
			if (err)
				failed_disable++;
		}
		tdis = now() - t;
		t_disable += tdis;
		note("everyfn: %s: chunk [%zu, %zu]: workload %.1f s, disabled in %.1f s",
		     mode, idx[0], idx[1], tw, tdis);
	}
	check(!failed_enable, "everyfn-%s-enabled (%zu failed)", mode, failed_enable);
	check(!not_armed, "everyfn-%s-all-armed (%zu chunks not)", mode, not_armed);
	check(!failed_disable, "everyfn-%s-disabled (%zu failed)", mode, failed_disable);
	profile(&hit, &missed);
	note("everyfn: %s: %zu of %zu probes hit, %llu misses; chunks of %zu: enabling %.1f s, workloads %.1f s, disabling %.1f s",
	     mode, hit, ok, missed, chunk, t_enable, t_work, t_disable);
	check(hit > 0, "everyfn-%s-probes-hit", mode);

remove:
	t = now();
	err = write_file(KE, "", 0);
	check(!err, "everyfn-%s-all-removed (%s)", mode, strerror(-err));
	listed = count_lines(LIST, NULL);
	note("everyfn: %s: removed in %.1f s", mode, now() - t);
	check(listed == 0, "everyfn-%s-list-empty-after (%zu left)", mode, listed);
	return finish();
}
