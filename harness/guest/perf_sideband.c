// SPDX-License-Identifier: GPL-2.0
/*
 * What perf's sideband records say of kprobes: perf (and an Intel PT
 * decoder after it) follows kernel code through PERF_RECORD_TEXT_POKE,
 * every change of kernel text, and through PERF_RECORD_KSYMBOL, code
 * outside the kernel's symbols such as the pages of kprobes' instruction
 * slots ("kprobe_insn_page", type OOL).
 *
 * With a dummy event on every CPU recording both, the program puts perf
 * kprobes on several instructions of close_fd(), enables them, calls it,
 * and takes them away.  On x86 each int3 written and lifted must show as
 * a one-byte text poke, the old byte and the new.  A slot page that came
 * or went meanwhile (as /proc/kallsyms tells) must show as a ksymbol
 * record, registered or unregistered, at its address.
 */
#include <sys/mman.h>

#include "guest.h"

#define FUNC		"close_fd"
#define MAX_OFFSET	64
#define MAX_PROBES	8
#define MAX_CPUS	64
#define MAX_PAGES	64
#define RB_PAGES	64	/* data pages per CPU: a power of two */
#define BAD_FD		777

struct ring {
	int fd;
	unsigned char *base;
};

static struct ring rings[MAX_CPUS];
static int nr_rings;
static long page_size;

#define MAX_POKES	8

/*
 * The one-byte pokes at a probe: int3 over a byte, and a byte over int3.
 * Records of different CPUs are read ring by ring, not in time order, and
 * an optimized probe also has its jump's first byte replaced by an int3:
 * the probe is right if a byte its int3 replaced was put back.
 */
struct probe {
	int fd;
	int ftrace;			/* served by ftrace: no int3 */
	unsigned long long addr;
	unsigned char armed[MAX_POKES], disarmed[MAX_POKES];
	int nr_armed, nr_disarmed;
};

static struct probe probes[MAX_PROBES];
static int nr_probes;

struct page_set {
	unsigned long long addr[MAX_PAGES];
	int nr;
};

static int open_rings(void)
{
	struct perf_event_attr attr;
	int cpu, ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.ksymbol = 1;
	attr.text_poke = 1;
	for (cpu = 0; cpu < ncpus && cpu < MAX_CPUS; cpu++) {
		struct ring *r = &rings[nr_rings];

		r->fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
		if (r->fd < 0) {
			note("perf_event_open(dummy, cpu %d): %s", cpu,
			     strerror(errno));
			return -1;
		}
		r->base = mmap(NULL, (1 + RB_PAGES) * page_size,
			       PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
		if (r->base == MAP_FAILED) {
			note("mmap of the ring of cpu %d: %s", cpu,
			     strerror(errno));
			close(r->fd);
			return -1;
		}
		nr_rings++;
	}
	return 0;
}

/* The addresses of the slot pages /proc/kallsyms lists now */
static void slot_pages(struct page_set *set)
{
	char line[256], name[128], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	set->nr = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) == 3 &&
		    !strcmp(name, "kprobe_insn_page") && set->nr < MAX_PAGES)
			set->addr[set->nr++] = addr;
	}
	fclose(f);
}

static int in_set(const struct page_set *set, unsigned long long addr)
{
	int i;

	for (i = 0; i < set->nr; i++) {
		if (set->addr[i] == addr)
			return 1;
	}
	return 0;
}

/* Where the probe on FUNC+@offset is, and how, from kprobes/list */
static void probe_where(struct probe *p, unsigned int offset)
{
	char *list = read_file(DEBUGFS "/kprobes/list"), *line, *save;
	char want[64];

	if (!list)
		return;
	snprintf(want, sizeof(want), "  " FUNC "+0x%x", offset);
	for (line = strtok_r(list, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, want))
			continue;
		p->addr = strtoull(line, NULL, 16);
		p->ftrace = !!strstr(line, "[FTRACE]");
	}
	free(list);
}

/* Did @p get its int3 and lose it again, the original byte put back? */
static int poked_and_restored(const struct probe *p)
{
	int i, j;

	for (i = 0; i < p->nr_armed; i++) {
		for (j = 0; j < p->nr_disarmed; j++) {
			if (p->armed[i] == p->disarmed[j])
				return 1;
		}
	}
	return 0;
}

/* The ksymbol records of slot pages seen, registered and unregistered */
static struct page_set came, went;

static void one_record(const unsigned char *rec)
{
	const struct perf_event_header *h = (const void *)rec;
	unsigned long long addr;
	int i;

	memcpy(&addr, rec + sizeof(*h), sizeof(addr));
	if (h->type == PERF_RECORD_KSYMBOL) {
		unsigned short ksym_type, flags;
		const char *name = (const char *)rec + sizeof(*h) + 16;

		memcpy(&ksym_type, rec + sizeof(*h) + 12, 2);
		memcpy(&flags, rec + sizeof(*h) + 14, 2);
		if (ksym_type != PERF_RECORD_KSYMBOL_TYPE_OOL ||
		    strcmp(name, "kprobe_insn_page"))
			return;
		if (flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
			if (went.nr < MAX_PAGES)
				went.addr[went.nr++] = addr;
		} else if (came.nr < MAX_PAGES) {
			came.addr[came.nr++] = addr;
		}
	} else if (h->type == PERF_RECORD_TEXT_POKE) {
		unsigned short old_len, new_len;
		const unsigned char *bytes = rec + sizeof(*h) + 12;

		memcpy(&old_len, rec + sizeof(*h) + 8, 2);
		memcpy(&new_len, rec + sizeof(*h) + 10, 2);
		if (old_len != 1 || new_len != 1)
			return;
		for (i = 0; i < nr_probes; i++) {
			struct probe *p = &probes[i];

			if (p->addr != addr)
				continue;
			if (bytes[0] != 0xcc && bytes[1] == 0xcc &&
			    p->nr_armed < MAX_POKES)
				p->armed[p->nr_armed++] = bytes[0];
			if (bytes[0] == 0xcc && bytes[1] != 0xcc &&
			    p->nr_disarmed < MAX_POKES)
				p->disarmed[p->nr_disarmed++] = bytes[1];
		}
	}
}

/* Every record in @r's ring, in order, unwrapped */
static void read_ring(struct ring *r)
{
	struct perf_event_mmap_page *pg = (void *)r->base;
	unsigned long long size = RB_PAGES * page_size, head, tail;
	unsigned char *data = r->base + page_size, rec[4096];
	struct perf_event_header h;
	unsigned long long i;

	head = pg->data_head;
	__sync_synchronize();
	if (head > size)
		note("ring overflowed: %llu bytes of records", head);
	for (tail = head > size ? head - size : 0; tail < head; tail += h.size) {
		for (i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(tail + i) % size];
		if (!h.size || h.size > sizeof(rec))
			break;
		for (i = 0; i < h.size; i++)
			rec[i] = data[(tail + i) % size];
		one_record(rec);
	}
}

int main(void)
{
	struct page_set before, during, after;
	unsigned int off;
	int i, n, is_x86;

	page_size = sysconf(_SC_PAGESIZE);
#if defined(__x86_64__)
	is_x86 = 1;
#else
	is_x86 = 0;
#endif
	if (!check(!open_rings(), "sideband-events-open"))
		return finish();
	slot_pages(&before);

	/* Perf kprobes on the first instructions of FUNC past its entry */
	for (off = 1; off < MAX_OFFSET && nr_probes < MAX_PROBES; off++) {
		int fd = perf_kprobe_open(FUNC, off, 0);

		if (fd < 0)
			continue;
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		probes[nr_probes].fd = fd;
		probe_where(&probes[nr_probes], off);
		nr_probes++;
	}
	check(nr_probes > 0, "sideband-probes-placed (%d on " FUNC ")",
	      nr_probes);
	for (i = 0; i < 5; i++)
		close(BAD_FD);
	slot_pages(&during);
	for (i = 0; i < nr_probes; i++)
		close(probes[i].fd);
	/* Slot pages go after a grace period and a work item. */
	for (i = 0; i < 50; i++) {
		slot_pages(&after);
		if (after.nr <= before.nr)
			break;
		usleep(100000);
	}
	for (i = 0; i < nr_rings; i++)
		read_ring(&rings[i]);

	if (is_x86) {
		int nr_int3 = 0;

		for (i = 0, n = 0; i < nr_probes; i++) {
			if (probes[i].ftrace)
				continue;
			nr_int3++;
			n += poked_and_restored(&probes[i]);
		}
		check(nr_int3 && n == nr_int3,
		      "sideband-text-poke-int3 (%d of %d int3 probes armed and disarmed)",
		      n, nr_int3);
	} else {
		note("skip sideband-text-poke-int3: no text poke records on this arch");
	}

	for (i = 0, n = 0; i < during.nr; i++) {
		if (!in_set(&before, during.addr[i]))
			n += !in_set(&came, during.addr[i]) ? 1 : 0;
	}
	note("slot pages: %d before, %d with the probes, %d after", before.nr,
	     during.nr, after.nr);
	note("ksymbol records of slot pages: %d registered, %d unregistered",
	     came.nr, went.nr);
	check(n == 0, "sideband-ksymbol-slot-page-registered (%d new pages without a record)",
	      n);
	for (i = 0, n = 0; i < during.nr; i++) {
		if (!in_set(&after, during.addr[i]))
			n += !in_set(&went, during.addr[i]) ? 1 : 0;
	}
	check(n == 0, "sideband-ksymbol-slot-page-unregistered (%d freed pages without a record)",
	      n);
	if (before.nr || during.nr == before.nr)
		note("slot pages did not come and go from none: the ksymbol checks saw %d new",
		     during.nr - before.nr);
	return finish();
}
