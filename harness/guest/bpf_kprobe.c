// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF kprobe program through the raw bpf() syscall, no libbpf: two
 * hand-assembled BPF_PROG_TYPE_KPROBE programs, one on a kprobe and one on
 * a kretprobe (perf kprobe PMU events, PERF_EVENT_IOC_SET_BPF), each count
 * their hits in an array map, and the hits where a register of the pt_regs
 * they get has the value this program caused: the first argument (the fd
 * passed to close()) at entry, the return value (-EBADF) at return.
 */
#include <linux/bpf.h>
#include "guest.h"

#define BAD_FD 777
#define TRIGGERS 4

/* Offsets in struct pt_regs of the first argument and the return value */
#if defined(__x86_64__)
#define ARG1_OFF 112	/* di */
#define RET_OFF 80	/* ax */
#elif defined(__aarch64__)
#define ARG1_OFF 0	/* regs[0] */
#define RET_OFF 0
#else
#error "unknown architecture"
#endif

struct slot {
	unsigned long long total;	/* every hit */
	unsigned long long matched;	/* hits where the register == match */
};

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/*
 * Count every hit in slot @key of the map, and the hits where the 32-bit
 * register at @reg_off in pt_regs (sign-extended) equals @match:
 *
 *	r6 = *(u64 *)(r1 + reg_off)	; ctx is struct pt_regs
 *	*(u32 *)(r10 - 4) = key
 *	r1 = map_fd ll
 *	r2 = r10
 *	r2 += -4
 *	call bpf_map_lookup_elem
 *	if r0 == 0 goto out
 *	r1 = 1
 *	lock *(u64 *)(r0 + 0) += r1
 *	r6 <<= 32
 *	r6 s>>= 32
 *	if r6 != match goto out
 *	lock *(u64 *)(r0 + 8) += r1
 * out:	r0 = 0
 *	exit
 */
static int load_prog(int map_fd, int key, int reg_off, int match, char *log,
		     size_t logsz)
{
	struct bpf_insn prog[] = {
		INSN(BPF_LDX | BPF_MEM | BPF_DW, 6, 1, reg_off, 0),
		INSN(BPF_ST | BPF_MEM | BPF_W, 10, 0, -4, key),
		INSN(BPF_LD | BPF_IMM | BPF_DW, 1, BPF_PSEUDO_MAP_FD, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 6, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, 0, 1, 0, BPF_ADD),
		INSN(BPF_ALU64 | BPF_LSH | BPF_K, 6, 0, 0, 32),
		INSN(BPF_ALU64 | BPF_ARSH | BPF_K, 6, 0, 0, 32),
		INSN(BPF_JMP | BPF_JNE | BPF_K, 6, 0, 1, match),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, 0, 1, 8, BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_KPROBE;
	attr.insns = (unsigned long)prog;
	attr.insn_cnt = sizeof(prog) / sizeof(prog[0]);
	attr.license = (unsigned long)"GPL";
	attr.log_buf = (unsigned long)log;
	attr.log_size = logsz;
	attr.log_level = 1;
	log[0] = '\0';
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

static int lookup(int map_fd, int key, struct slot *val)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = (unsigned long)&key;
	attr.value = (unsigned long)val;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
}

static int attach(int prog_fd, const char *func, int retprobe)
{
	int fd = perf_kprobe_open(func, 0, retprobe);

	if (fd < 0) {
		note("perf_event_open(kprobe %s): %s", func, strerror(-fd));
		return -1;
	}
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) < 0) {
		note("PERF_EVENT_IOC_SET_BPF: %s", strerror(errno));
		close(fd);
		return -1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	return fd;
}

int main(void)
{
	static char log[65536];
	struct slot entry = { 0 }, ret = { 0 };
	int map_fd, kprog, rprog, kfd, rfd, i;
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(int);
	attr.value_size = sizeof(struct slot);
	attr.max_entries = 2;
	map_fd = sys_bpf(BPF_MAP_CREATE, &attr);
	if (!check(map_fd >= 0, "bpf-map-create")) {
		note("BPF_MAP_CREATE: %s", strerror(errno));
		return finish();
	}

	kprog = load_prog(map_fd, 0, ARG1_OFF, BAD_FD, log, sizeof(log));
	if (!check(kprog >= 0, "bpf-kprobe-prog-load"))
		note("BPF_PROG_LOAD: %s\n%s", strerror(errno), log);
	rprog = load_prog(map_fd, 1, RET_OFF, -EBADF, log, sizeof(log));
	if (!check(rprog >= 0, "bpf-kretprobe-prog-load"))
		note("BPF_PROG_LOAD: %s\n%s", strerror(errno), log);
	if (kprog < 0 || rprog < 0)
		return finish();

	kfd = attach(kprog, "close_fd", 0);
	check(kfd >= 0, "bpf-kprobe-attach (PERF_EVENT_IOC_SET_BPF)");
	rfd = attach(rprog, "close_fd", 1);
	check(rfd >= 0, "bpf-kretprobe-attach (PERF_EVENT_IOC_SET_BPF)");

	for (i = 0; i < TRIGGERS; i++)
		close(BAD_FD);

	if (kfd >= 0)
		close(kfd);	/* detaches */
	if (rfd >= 0)
		close(rfd);
	close(BAD_FD);		/* after detach: not counted */

	check(lookup(map_fd, 0, &entry) == 0 && lookup(map_fd, 1, &ret) == 0,
	      "bpf-map-lookup");
	note("bpf map: kprobe %llu hits, %llu with arg1 == %d; kretprobe %llu hits, %llu returning -EBADF",
	     entry.total, entry.matched, BAD_FD, ret.total, ret.matched);
	/*
	 * Other tasks may call close_fd() too, and closing the perf fds
	 * does: every hit counts in total, only ours match, and none after
	 * the programs were detached.
	 */
	check(entry.total >= TRIGGERS, "bpf-kprobe-prog-ran (%llu >= %d)",
	      entry.total, TRIGGERS);
	check(ret.total >= TRIGGERS, "bpf-kretprobe-prog-ran (%llu >= %d)",
	      ret.total, TRIGGERS);
	check(entry.matched == TRIGGERS, "bpf-kprobe-sees-arg1 (%llu calls with fd %d)",
	      entry.matched, BAD_FD);
	check(ret.matched == TRIGGERS, "bpf-kretprobe-sees-retval (%llu returns of -EBADF)",
	      ret.matched);
	return finish();
}
