# Shared settings of the harness scripts. Sourced, not run.
# shellcheck shell=bash

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${KPROBES_CACHE:-/var/cache/kprobes-build}
PRISTINE=$CACHE/linux-source-6.1
TREE=$CACHE/tree
ARCH=${ARCH:-x86_64}
# VARIANT=NAME adds harness/configs/NAME.config (and ARCH-NAME.config) to
# the fragments and builds in its own directory; STOCK=1 builds the
# pristine base tree (the stock kprobes, for comparison: built and run,
# never read) with the same fragments.  KPROBES_BUILD overrides the build
# directory (harness/bench.sh builds its own kernels elsewhere).
VARIANT=${VARIANT:-}
STOCK=${STOCK:-0}
if [ "$STOCK" = 1 ]; then
	TREE=$PRISTINE
	BUILD=${KPROBES_BUILD:-$CACHE/build/stock-$ARCH${VARIANT:+-$VARIANT}}
else
	BUILD=${KPROBES_BUILD:-$CACHE/build/$ARCH${VARIANT:+-$VARIANT}}
fi
JOBS=${JOBS:-$(nproc)}

# The stock kprobes implementation: deleted from the tree, never read.
STOCK_FILES=(
	kernel/kprobes.c
	include/linux/kprobes.h
	include/asm-generic/kprobes.h
	arch/x86/include/asm/kprobes.h
	arch/arm64/include/asm/kprobes.h
	arch/arm64/include/asm/probes.h
	lib/test_kprobes.c
	Documentation/trace/kprobes.rst
)
# Whole stock directories; arm64's uprobes.c is not part of kprobes and stays.
STOCK_DIRS=(
	arch/x86/kernel/kprobes
	arch/arm64/kernel/probes
	samples/kprobes
)
STOCK_KEEP=(
	arch/arm64/kernel/probes/uprobes.c
)

# Our files that go into the tree: everything in the repo but the harness.
our_files() {
	(cd "$REPO" && git ls-files --cached --others --exclude-standard |
		grep -vE '^(harness/|\.ci/|Makefile$|README\.md$|\.gitignore$)' |
		while read -r f; do [ -f "$f" ] && echo "$f"; done) || true
}

# The kernel's name for $ARCH, its cross compiler prefix, its image.
case "$ARCH" in
x86_64)	KARCH=x86_64 CROSS='' IMAGE=arch/x86/boot/bzImage IMAGE_TARGET=bzImage ;;
arm64)	KARCH=arm64 CROSS=aarch64-linux-gnu- IMAGE=arch/arm64/boot/Image IMAGE_TARGET=Image ;;
*)	KARCH='' CROSS='' IMAGE='' IMAGE_TARGET='' ;;
esac

# ccache hits across checkouts and caches: paths below this are hashed
# relative to the build directory.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$CACHE")}

# A kernel build or a QEMU run keeps both cores busy: run one at a time on
# this machine, whatever checkout or cache it comes from.
CPU_LOCK=${KPROBES_CPU_LOCK:-/tmp/kprobes-cpu.lock}
# A script that holds the lock for a whole sequence of builds and runs
# (harness/bench.sh) exports KPROBES_CPU_LOCK_HELD=1, so that what it runs
# does not queue for the lock again.
with_cpu() {
	if [ "${KPROBES_CPU_LOCK_HELD:-}" = 1 ]; then
		"$@"
	else
		flock "$CPU_LOCK" "$@"
	fi
}

# Extract Debian's linux-source-6.1 into $PRISTINE, once.
extract_pristine() {
	local tarball
	tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1) ||
		true
	[ -n "$tarball" ] || die "linux-source-6.1 is not installed (make deps)"
	mkdir -p "$CACHE"
	if [ ! -f "$PRISTINE/.extracted" ]; then
		say "extracting $tarball (once)"
		rm -rf "$PRISTINE"
		tar -xf "$tarball" -C "$CACHE"
		touch "$PRISTINE/.extracted"
	fi
}

# The start of the scripts that work on the prepared tree with tools of
# their own (series.sh, cross.sh, docs.sh): install those of the Debian
# packages named that are missing (the base set is deps.sh's), then make
# $TREE what the repo says (harness/prepare-tree.sh).
prepare_tree_with() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} != 0 ]; then
		say "installing: ${missing[*]}"
		[ "$(id -u)" = 0 ] || die "run as root to install ${missing[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends "${missing[@]}" >&2
	fi
	"$REPO/harness/prepare-tree.sh" > /dev/null
}

# The command line that make check's own boots (harness/check.sh,
# harness/soak.sh) add on $ARCH: on arm64 pseudo-NMIs on, so that
# "interrupts masked" means the GIC's priority mask (PMR), not PSTATE.I;
# the judge makes sure they are (harness/check-log.sh).  CHECK_PSEUDO_NMI=0
# leaves them off (for a kernel built without CONFIG_ARM64_PSEUDO_NMI).
check_cmdline_extra() {
	if [ "$ARCH" = arm64 ] && [ "${CHECK_PSEUDO_NMI:-1}" = 1 ]; then
		echo irqchip.gicv3_pseudo_nmi=1
	fi
}

# What a kernel splat looks like in a console log: any of these fails a run.
SPLATS='WARNING:|BUG:|Oops|general protection fault|Kernel panic|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|lockdep is turned off|debug_locks|INFO: task|rcu_sched self-detected|rcu: INFO|Call Trace:|UBSAN|refcount_t:|list_add corruption|list_del corruption|double fault|kernel stack overflow|KASAN:|KFENCE:|QEMU timed out'

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
