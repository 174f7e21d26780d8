# Driver for the kprobes patch series: prepares the kernel tree, builds it,
# boots it in QEMU and runs the tests.  See README.md.

ARCH ?= x86_64
export ARCH

.PHONY: all deps tree build demo check checkpatch bench clean-tree consumers \
	stock stock-consumers every-function patches cross docs check-deep soak

all: check

deps:
	@harness/deps.sh

tree: deps
	@harness/prepare-tree.sh

build: deps
	@harness/build.sh

demo: deps
	@harness/demo.sh

check: deps
	@harness/check.sh

checkpatch: deps
	@harness/checkpatch.sh

# The patch series for a pristine tree (CHECK=1: every step builds, docs)
patches: deps
	@CHECK=$(CHECK) harness/series.sh

# Other architectures still configure and build (riscv, arm, i386)
cross: deps
	@harness/cross.sh

# Documentation/trace builds without warnings about our files
docs: deps
	@harness/docs.sh

# make check on the KASAN + KFENCE + function tracer build (VARIANT=kasan),
# without the separate ftrace variant (CHECK_NO_FTRACE=)
check-deep: deps
	@VARIANT=$${VARIANT:-kasan} CHECK_NO_FTRACE=$${CHECK_NO_FTRACE-1} QEMU_TIMEOUT=$${QEMU_TIMEOUT:-2400} harness/check.sh

# The torture test for SOAK_S seconds (default 600), ARCH=, SMP=, VARIANT=
soak: deps
	@harness/soak.sh

# A distribution-like kernel (VARIANT=ftrace): the consumers of kprobes and
# ftracetest from the guest; the stock kernel built the same way
consumers: deps
	@harness/run-consumers.sh

# A kprobe on every function of the kernel, kretprobes on thousands, from the
# guest; bisects to the culprit if the kernel dies (ARCH=, VARIANT=ftrace)
every-function: deps
	@harness/every-function.sh

stock: deps
	@harness/build-stock.sh

stock-consumers: deps
	@STOCK=1 harness/run-consumers.sh

bench: deps
	@harness/bench.sh

clean-tree:
	rm -rf $${KPROBES_CACHE:-/var/cache/kprobes-build}/tree $${KPROBES_CACHE:-/var/cache/kprobes-build}/build
