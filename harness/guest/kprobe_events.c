// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe_events from userspace: p: and r: probes with arguments ($argN,
 * named registers, a user string), $retval, an offset into a function, a
 * kretprobe with maxactive, enable and disable through tracefs.  Every
 * check asserts values the program itself caused: the fd passed to close(),
 * the errno close_fd() returns for it, the count and buffer of a write().
 */
#include <sys/mount.h>
#include "guest.h"

#if defined(__x86_64__)
#define REG1 "%di"
#define REG3 "%dx"
#elif defined(__aarch64__)
#define REG1 "%x0"
#define REG3 "%x2"
#else
#error "unknown architecture"
#endif

#define KE TRACEFS "/kprobe_events"
#define BAD_FD 777
#define BAD_FD_DISABLED 778
#define WRITE_COUNT 4242
#define TRIGGERS 3

static int add(const char *def)
{
	int err = write_file(KE, def, 1);

	if (err)
		note("kprobe_events: '%s' refused: %s", def, strerror(-err));
	return err == 0;
}

/* Lines of @trace containing every one of the NULL-terminated strings */
static int count_lines(const char *trace, ...)
{
	const char *line = trace;
	int n = 0;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *copy = strndup(line, len);
		const char *needle;
		va_list ap;
		int all = 1;

		va_start(ap, trace);
		while ((needle = va_arg(ap, const char *)))
			if (!strstr(copy, needle))
				all = 0;
		va_end(ap);
		n += all;
		free(copy);
		line = end ? end + 1 : NULL;
	}
	return n;
}

/* Hits of event @name in kprobe_profile, or -1 */
static long profile_hits(const char *name)
{
	char *prof = read_file(TRACEFS "/kprobe_profile");
	char *line, *save = NULL;
	long hits = -1;

	for (line = prof ? strtok_r(prof, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char ev[128];
		long h, m;

		if (sscanf(line, " %127s %ld %ld", ev, &h, &m) == 3 &&
		    !strcmp(ev, name))
			hits = h;
	}
	free(prof);
	return hits;
}

int main(void)
{
	static char wbuf[WRITE_COUNT] = "kpt-magic";
	char def[256], want[128];
	int off, offset = -1, pipefd[2], i;
	char *trace, *list;

	if (!file_exists(KE))
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	if (!check(file_exists(KE), "kprobe_events-present"))
		return finish();

	write_file(KE, "", 0);
	write_file(TRACEFS "/trace", "", 0);
	write_file(TRACEFS "/tracing_on", "1", 0);

	check(add("p:kpt/close_fd close_fd fd=$arg1:u32 fdreg=" REG1 ":u32"),
	      "kprobe_events-p-args-created");
	check(add("r:kpt/close_fd_ret close_fd ret=$retval:s32"),
	      "kprobe_events-r-retval-created");
	check(add("r10:kpt/close_fd_ret10 close_fd ret=$retval:s32"),
	      "kprobe_events-r10-maxactive-created");
	check(add("p:kpt/vfs_write vfs_write count=$arg3:u64 countreg=" REG3
		  ":u64 buf=+0($arg2):ustring"),
	      "kprobe_events-p-ustring-created");
	/*
	 * An offset past the entry sequence (x86: endbr64 + call __fentry__,
	 * arm64: the patchable NOPs): the first instruction boundary the
	 * kernel accepts from +10 on.
	 */
	for (off = 10; off < 64 && offset < 0; off++) {
		snprintf(def, sizeof(def), "p:kpt/close_fd_off close_fd+%d", off);
		if (write_file(KE, def, 1) == 0)
			offset = off;
	}
	check(offset > 0, "kprobe_events-offset-created (close_fd+%d)", offset);
#ifdef __x86_64__
	/*
	 * A byte inside close_fd's ftrace call, at +0, or at +4 behind an
	 * ENDBR (a probe at +4 is then taken: the call site; without ENDBR
	 * +4 is inside the call): kprobe_events names the reason when
	 * kprobes says -EILSEQ.
	 */
	if (file_exists(TRACEFS "/available_filter_functions")) {
		const char *inside = "p:kpt/inside close_fd+1";
		char *log;

		if (write_file(KE, "p:kpt/site close_fd+4", 1) == 0) {
			inside = "p:kpt/inside close_fd+5";
			write_file(KE, "-:kpt/site", 1);
		}
		write_file(TRACEFS "/error_log", "", 0);
		check(write_file(KE, inside, 1) < 0,
		      "kprobe_events-refuses-inside-ftrace-call (%s)", inside);
		log = read_file(TRACEFS "/error_log");
		check(log && strstr(log, "not an instruction boundary"),
		      "kprobe_events-inside-ftrace-call-says-boundary");
		if (log)
			note("error_log:\n%s", log);
		free(log);
	}
#endif
	check(write_file(KE, "p:kpt/nosuch kpt_no_such_function_xyz", 1) < 0,
	      "kprobe_events-refuses-unknown-symbol");
	check(write_file(KE, "p:kpt/badarg close_fd x=$arg1:nosuchtype", 1) < 0,
	      "kprobe_events-refuses-bad-type");

	list = read_file(KE);
	note("kprobe_events:\n%s", list ? list : "(unreadable)");
	check(list && strstr(list, "r10:kpt/close_fd_ret10 close_fd ret=$retval:s32"),
	      "kprobe_events-lists-maxactive");
	free(list);

	check(write_file(TRACEFS "/events/kpt/enable", "1", 0) == 0,
	      "kprobe_events-enable");
	check(read_number(TRACEFS "/events/kpt/close_fd/enable") == 1,
	      "kprobe_events-enabled-reads-1");
	for (i = 0; i < TRIGGERS; i++)
		close(BAD_FD);
	if (pipe(pipefd) == 0) {
		if (write(pipefd[1], wbuf, WRITE_COUNT) != WRITE_COUNT)
			note("write to pipe: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
	}
	check(write_file(TRACEFS "/events/kpt/enable", "0", 0) == 0,
	      "kprobe_events-disable");
	check(read_number(TRACEFS "/events/kpt/close_fd/enable") == 0,
	      "kprobe_events-disabled-reads-0");
	close(BAD_FD_DISABLED);

	trace = read_file(TRACEFS "/trace");
	if (!trace)
		trace = strdup("");
	note("trace (kpt events):");
	{
		char *t = strdup(trace), *line, *save = NULL;
		int shown = 0;

		for (line = strtok_r(t, "\n", &save); line && shown < 16;
		     line = strtok_r(NULL, "\n", &save)) {
			if (strstr(line, "fd=777") || strstr(line, "ret=-9") ||
			    strstr(line, "close_fd_off:") || strstr(line, "count=4242")) {
				printf("  %s\n", line);
				shown++;
			}
		}
		free(t);
	}

	check(count_lines(trace, " close_fd: (close_fd+", "fd=777 fdreg=777", NULL) == TRIGGERS,
	      "kprobe_events-p-args-values (fd=$arg1 and %s = 777, %d hits)", REG1, TRIGGERS);
	check(count_lines(trace, " close_fd_ret: (", "<- close_fd) ret=-9", NULL) == TRIGGERS,
	      "kprobe_events-r-retval-value (close_fd returned -EBADF)");
	check(count_lines(trace, " close_fd_ret10: (", "<- close_fd) ret=-9", NULL) == TRIGGERS,
	      "kprobe_events-r10-retval-value");
	check(count_lines(trace, " vfs_write: (vfs_write+",
			  "count=4242 countreg=4242 buf=\"kpt-magic\"", NULL) == 1,
	      "kprobe_events-p-count-and-ustring (write of 4242 bytes of \"kpt-magic\")");
	snprintf(want, sizeof(want), " close_fd_off: (close_fd+0x%x/", offset);
	check(offset > 0 && count_lines(trace, want, NULL) >= TRIGGERS,
	      "kprobe_events-offset-hit (close_fd+0x%x)", offset);
	check(count_lines(trace, "fd=778", NULL) == 0, "kprobe_events-disabled-no-hits");
	check(profile_hits("close_fd") >= TRIGGERS,
	      "kprobe_profile-counts-hits (close_fd: %ld)", profile_hits("close_fd"));
	free(trace);

	check(write_file(KE, "-:kpt/close_fd", 1) == 0 &&
	      !file_exists(TRACEFS "/events/kpt/close_fd"),
	      "kprobe_events-remove-one");
	check(write_file(KE, "", 0) == 0 && !file_exists(TRACEFS "/events/kpt"),
	      "kprobe_events-clear-all");
	return finish();
}
