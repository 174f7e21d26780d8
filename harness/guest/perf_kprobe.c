// SPDX-License-Identifier: GPL-2.0
/*
 * The perf kprobe PMU: perf_event_open() with the type read from
 * /sys/bus/event_source/devices/kprobe/type and the function name in
 * config1, for a kprobe and a kretprobe (the "retprobe" config bit); each
 * counts exactly the calls this task made.
 */
#include "guest.h"

#define BAD_FD 777
#define TRIGGERS 5

static void count_one(const char *func, int retprobe)
{
	const char *what = retprobe ? "kretprobe" : "kprobe";
	long long count = -1;
	int fd, i;

	fd = perf_kprobe_open(func, 0, retprobe);
	if (!check(fd >= 0, "perf-%s-open (%s)", what, func)) {
		note("perf_event_open(kprobe %s, retprobe=%d): %s", func,
		     retprobe, strerror(-fd));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < TRIGGERS; i++)
		close(BAD_FD);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(BAD_FD);	/* not counted: disabled */
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = -1;
	note("perf %s on %s: count %lld after %d calls", what, func, count,
	     TRIGGERS);
	check(count == TRIGGERS, "perf-%s-counts (%lld == %d)", what, count,
	      TRIGGERS);
	close(fd);
}

int main(void)
{
	int type = kprobe_pmu_type(), fd;

	if (!check(type > 0, "perf-kprobe-pmu-type (%d)", type))
		return finish();
	check(kprobe_pmu_retprobe_bit() >= 0, "perf-kprobe-pmu-retprobe-format (config:%d)",
	      kprobe_pmu_retprobe_bit());
	count_one("close_fd", 0);
	count_one("close_fd", 1);

	fd = perf_kprobe_open("kpt_no_such_function_xyz", 0, 0);
	check(fd < 0, "perf-kprobe-refuses-unknown-symbol (%s)",
	      fd < 0 ? strerror(-fd) : "opened");
	if (fd >= 0)
		close(fd);
	return finish();
}
