// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to every file kprobes owns: /sys/kernel/debug/kprobes/{list,
 * stats,blacklist,enabled} and /proc/sys/debug/kprobes-optimization.
 *
 *   1. reads in pieces (1, 7, 4096 bytes), at odd offsets (pread), past
 *      the end, at a negative offset, into a bad buffer, of no bytes:
 *      the pieces put together are the whole file, and everything else
 *      is a clean errno or an empty read;
 *   2. garbage writes (empty, huge, negative, out of range, non-numeric,
 *      binary, from a bad buffer, at an offset): a clean errno or
 *      ignored, and the value does not change;
 *   3. an unprivileged user (uid 65534, with debugfs made traversable
 *      for the test) can neither open the debugfs files nor write the
 *      sysctl, not even through a descriptor root opened for writing,
 *      and sees no kernel address of ours in /proc/kallsyms.
 *
 * Two disabled kprobe_events keep list and stats non-empty and still.
 * The kernel must not splat meanwhile: the host judges the console.
 */
#include <sys/mount.h>
#include <sys/wait.h>
#include <grp.h>
#include "guest.h"

#define KP DEBUGFS "/kprobes"
#define SYSCTL "/proc/sys/debug/kprobes-optimization"
#define NOBODY 65534

/* An address no process has mapped, hidden from the compiler's checks */
static void *volatile bad_buffer = (void *)16;

static const char * const files[] = {
	KP "/list", KP "/stats", KP "/blacklist", KP "/enabled", SYSCTL,
};

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void check_reads(const char *path)
{
	const char *name = base(path);
	static const size_t chunks[] = { 1, 7, 4096 };
	int sysctl = !strcmp(path, SYSCTL);
	char *whole = read_file(path), *part, buf[64];
	size_t len, i;
	off_t offs[6];
	int fd;

	if (!check(whole != NULL, "badinput-%s-readable", name))
		return;
	len = strlen(whole);
	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		part = read_file_chunked(path, chunks[i]);
		/*
		 * An integer sysctl (proc_dointvec) gives end-of-file to a
		 * read that does not start at 0: the first piece is all.
		 */
		if (part && sysctl && chunks[i] < len)
			check(!strncmp(part, whole, chunks[i]) &&
			      strlen(part) == chunks[i],
			      "badinput-%s-read-in-%zu-byte-pieces", name, chunks[i]);
		else
			check(part && !strcmp(part, whole),
			      "badinput-%s-read-in-%zu-byte-pieces", name, chunks[i]);
		free(part);
	}

	fd = open(path, O_RDONLY);
	if (!check(fd >= 0, "badinput-%s-opens", name)) {
		free(whole);
		return;
	}
	offs[0] = 1;
	offs[1] = 3;
	offs[2] = len ? len - 1 : 0;
	offs[3] = len;
	offs[4] = len + 1;
	offs[5] = (off_t)1 << 40;
	for (i = 0; i < 6; i++) {
		ssize_t want = offs[i] < (off_t)len ? (ssize_t)(len - offs[i]) : 0;
		ssize_t n;

		if (sysctl)	/* as above: nothing past the start */
			want = 0;

		if (want > (ssize_t)sizeof(buf))
			want = sizeof(buf);
		n = pread(fd, buf, sizeof(buf), offs[i]);
		/* Far past the end: nothing, or a clean error */
		if (offs[i] > (off_t)len && n < 0 && errno == EINVAL)
			n = 0;
		check(n == want && !memcmp(buf, whole + (want ? offs[i] : 0), want),
		      "badinput-%s-pread-at-%lld", name, (long long)offs[i]);
	}
	errno = 0;
	check(lseek(fd, -1, SEEK_SET) == -1 && errno == EINVAL,
	      "badinput-%s-negative-seek-refused", name);
	errno = 0;
	check(read(fd, bad_buffer, 8) == -1 && errno == EFAULT,
	      "badinput-%s-read-to-bad-buffer-efault", name);
	lseek(fd, 0, SEEK_SET);
	check(read(fd, buf, 0) == 0, "badinput-%s-read-of-0-bytes", name);
	/* After all that, the descriptor still reads the file from 0 */
	lseek(fd, 0, SEEK_SET);
	memset(buf, 0, sizeof(buf));
	check(read(fd, buf, sizeof(buf) - 1) >= 0 &&
	      !strncmp(buf, whole, strlen(buf)), "badinput-%s-reads-again", name);
	close(fd);
	free(whole);
}

/* One garbage write; 0 if it was written in full, or -errno. */
static int write_bytes(const char *path, const void *data, size_t len,
		       off_t off)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = off ? pwrite(fd, data, len, off) : write(fd, data, len);
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static void check_writes(const char *path, int value_file)
{
	const char *name = base(path);
	static const struct {
		const char *what;
		const char *data;
		size_t len;
		int must_fail;	/* else it may be ignored */
	} inputs[] = {
		{ "empty", "", 0, 0 },
		{ "negative", "-1", 2, 1 },
		{ "out-of-range", "2", 1, 1 },
		{ "big-number", "99999999999999999999999", 23, 1 },
		{ "non-numeric", "kprobe", 6, 1 },
		{ "binary", "\0\xff\x80\x01", 4, 1 },
		{ "space", " ", 1, 1 },
	};
	size_t huge_len = 1 << 20, i;
	char *before = read_file(path), *after, *huge;
	int err;

	for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		err = write_bytes(path, inputs[i].data, inputs[i].len, 0);
		after = read_file(path);
		note("%s: %s write: %s", name, inputs[i].what,
		     err ? strerror(-err) : "accepted");
		check((err || !inputs[i].must_fail || !value_file) &&
		      (!value_file || (after && before && !strcmp(after, before))) &&
		      (value_file || err == -EINVAL || err == -EACCES),
		      "badinput-%s-%s-write", name, inputs[i].what);
		free(after);
	}
	huge = malloc(huge_len);
	if (huge) {
		memset(huge, 'x', huge_len);
		err = write_bytes(path, huge, huge_len, 0);
		after = read_file(path);
		note("%s: 1 MiB write: %s", name, err ? strerror(-err) : "accepted");
		check(err && after && before && !strcmp(after, before),
		      "badinput-%s-huge-write", name);
		free(after);
		free(huge);
	}
	err = write_bytes(path, bad_buffer, 4, 0);
	after = read_file(path);
	check(err == -EFAULT || (!value_file && err == -EINVAL),
	      "badinput-%s-write-from-bad-buffer (%s)", name, strerror(-err));
	check(after && before && !strcmp(after, before),
	      "badinput-%s-unchanged-after-bad-buffer", name);
	free(after);
	if (value_file) {
		/* At an offset: the file's own value, or ignored */
		err = write_bytes(path, "1", 1, 100);
		after = read_file(path);
		note("%s: write at offset 100: %s", name,
		     err ? strerror(-err) : "accepted");
		check(after && before && !strcmp(after, before),
		      "badinput-%s-write-at-offset", name);
		free(after);
	}
	free(before);
}

/* The unprivileged part, in a child that dropped root; 0 if all was well */
static int unprivileged(int sysctl_wfd)
{
	char *ks, *line, *save = NULL;
	int fd, bad = 0, pages = 0, shown = 0;
	size_t i;

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)) {
		note("cannot become uid %d: %s", NOBODY, strerror(errno));
		return 1;
	}
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (!file_exists(files[i]) && errno != EACCES)
			continue;
		fd = open(files[i], O_WRONLY);
		bad += !check(fd < 0 && errno == EACCES,
			      "badinput-unprivileged-cannot-write-%s", base(files[i]));
		if (fd >= 0)
			close(fd);
		if (!strcmp(files[i], SYSCTL))
			continue;	/* a value, no address: readable */
		fd = open(files[i], O_RDONLY);
		bad += !check(fd < 0 && errno == EACCES,
			      "badinput-unprivileged-cannot-read-%s", base(files[i]));
		if (fd >= 0)
			close(fd);
	}
	if (sysctl_wfd >= 0) {
		errno = 0;
		bad += !check(write(sysctl_wfd, "0", 1) < 0 && errno == EPERM,
			      "badinput-unprivileged-cannot-write-sysctl-through-root-fd");
	}
	/* The slot pages in /proc/kallsyms: listed, without addresses */
	ks = read_file("/proc/kallsyms");
	for (line = ks ? strtok_r(ks, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, " kprobe_insn_page"))
			continue;
		pages++;
		if (strncmp(line, "0000000000000000 ", 17))
			shown++;
	}
	free(ks);
	note("unprivileged: %d slot pages in /proc/kallsyms, %d with an address",
	     pages, shown);
	bad += !check(shown == 0, "badinput-unprivileged-no-slot-page-address");
	return bad ? 1 : 0;
}

int main(void)
{
	long long sysctl_before = -1;
	int sysctl_wfd = -1, status;
	size_t i;
	pid_t pid;

	/* Something in list and stats that does not change */
	write_file(TRACEFS "/kprobe_events", "p:kpt/badinput vfs_read\n", 1);
	write_file(TRACEFS "/kprobe_events", "r:kpt/badinput_r vfs_write\n", 1);

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (!file_exists(files[i])) {
			note("skip %s (not in this kernel)", files[i]);
			continue;
		}
		check_reads(files[i]);
		check_writes(files[i], !strcmp(base(files[i]), "enabled") ||
				       !strcmp(files[i], SYSCTL));
	}
	check(read_number(KP "/enabled") == 1, "badinput-still-enabled");

	/* Let the child reach the files, so that their own modes are tested */
	check(mount(NULL, DEBUGFS, NULL, MS_REMOUNT, "mode=0755") == 0,
	      "badinput-debugfs-made-traversable");
	if (file_exists(SYSCTL)) {
		sysctl_wfd = open(SYSCTL, O_WRONLY);
		sysctl_before = read_number(SYSCTL);
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(unprivileged(sysctl_wfd));
	check(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status),
	      "badinput-unprivileged-child-ran");
	if (sysctl_wfd >= 0) {
		long long after = read_number(SYSCTL);

		note("kprobes-optimization: %lld before the child, %lld after",
		     sysctl_before, after);
		check(after == sysctl_before,
		      "badinput-sysctl-unchanged-by-unprivileged");
	}
	if (sysctl_wfd >= 0)
		close(sysctl_wfd);
	check(mount(NULL, DEBUGFS, NULL, MS_REMOUNT, "mode=0700") == 0,
	      "badinput-debugfs-mode-restored");

	write_file(TRACEFS "/kprobe_events", "-:kpt/badinput\n", 1);
	write_file(TRACEFS "/kprobe_events", "-:kpt/badinput_r\n", 1);
	return finish();
}
