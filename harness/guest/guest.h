/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest programs: each program prints one line
 * "guest-check: ok NAME" or "guest-check: not ok NAME" per check, which
 * harness/check-log.sh counts, and "guest: ..." lines for the reader.
 */
#ifndef KPT_GUEST_H
#define KPT_GUEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#define TRACEFS "/sys/kernel/tracing"
#define DEBUGFS "/sys/kernel/debug"

static int guest_failures;

static inline int check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("guest-check: %s ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		guest_failures++;
	return cond;
}

static inline void note(const char *fmt, ...)
{
	va_list ap;

	fputs("guest: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* Write @s to @path (O_APPEND with @append); 0 or -errno. */
static inline int write_file(const char *path, const char *s, int append)
{
	int fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n < 0 ? -errno : (size_t)n == strlen(s) ? 0 : -EIO;
	close(fd);
	return err;
}

/*
 * Read @path with reads of @chunk bytes into a malloc'ed string (NULL on
 * error); the pieces matter for files that treat offsets specially.
 */
static inline char *read_file_chunked(const char *path, size_t chunk)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (;;) {
		if (len + chunk > cap) {
			char *nbuf = realloc(buf, 2 * cap + 1);

			if (!nbuf)
				break;
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, chunk);
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Read all of @path into a malloc'ed string (NULL on error). */
static inline char *read_file(const char *path)
{
	return read_file_chunked(path, 4096);
}

/* Read a decimal or hex number from @path, or -1. */
static inline long long read_number(const char *path)
{
	char *s = read_file(path);
	long long v = -1;

	if (s && *s)
		v = strtoll(s, NULL, 0);
	free(s);
	return v;
}

static inline int file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/*
 * The perf "kprobe" PMU: its type, and the config bit that makes a
 * kretprobe, from /sys/bus/event_source/devices/kprobe/.
 */
#define KPROBE_PMU "/sys/bus/event_source/devices/kprobe"

static inline int kprobe_pmu_type(void)
{
	return (int)read_number(KPROBE_PMU "/type");
}

static inline int kprobe_pmu_retprobe_bit(void)
{
	char *s = read_file(KPROBE_PMU "/format/retprobe");
	int bit = -1;

	if (s && !strncmp(s, "config:", 7))
		bit = atoi(s + 7);
	free(s);
	return bit;
}

/*
 * Open a counting perf kprobe (or kretprobe) on @func+@offset for this task
 * on any CPU, disabled; the fd, or -errno.
 */
static inline int perf_kprobe_open(const char *func, unsigned long long offset,
				   int retprobe)
{
	struct perf_event_attr attr;
	int type = kprobe_pmu_type(), bit = kprobe_pmu_retprobe_bit();
	long fd;

	if (type < 0 || (retprobe && bit < 0))
		return -ENODEV;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = retprobe ? 1ULL << bit : 0;
	attr.kprobe_func = (unsigned long)func;		/* config1 */
	attr.probe_offset = offset;			/* config2 */
	attr.sample_period = 1;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	return fd < 0 ? -errno : (int)fd;
}

static inline int finish(void)
{
	return guest_failures ? 1 : 0;
}

#endif /* KPT_GUEST_H */
