# Driver for the kprobes patch series: prepares the kernel tree, builds it,
# boots it in QEMU and runs the tests.  See README.md.

ARCH ?= x86_64
export ARCH

.PHONY: all deps tree build demo check checkpatch bench clean-tree consumers \
	stock stock-consumers

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

# A distribution-like kernel (VARIANT=ftrace): the consumers of kprobes and
# ftracetest from the guest; the stock kernel built the same way
consumers: deps
	@harness/run-consumers.sh

stock: deps
	@harness/build-stock.sh

stock-consumers: deps
	@STOCK=1 harness/run-consumers.sh

bench: deps
	@harness/bench.sh

clean-tree:
	rm -rf $${KPROBES_CACHE:-/var/cache/kprobes-build}/tree $${KPROBES_CACHE:-/var/cache/kprobes-build}/build
