#!/usr/bin/env bash
# make cross: build the patched tree for architectures whose kprobes
# backend is not ours, to show that they still configure and build.
#
# For each of $CROSS_ARCHES (default: riscv arm i386): defconfig, plus every
# kprobes-related option that Kconfig still offers there (the fragment
# below), then a full build (vmlinux, modules, dtbs; CROSS_TARGETS="vmlinux"
# for less; CROSS_BUILD=0 for the configuration only).  Reports whether
# KPROBES is offered (it must not be: only x86_64 and arm64 select
# HAVE_KPROBE_POINTS) and which options of the fragment did not stick.
# Logs in $CACHE/results/cross-ARCH.log, the summary of each arch in
# $CACHE/results/cross-ARCH.txt; $CACHE/results/cross.txt (for the cover
# letter of make patches) gathers those of all the arches run so far, so
# that they may be built one at a time.  Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

arches=${CROSS_ARCHES:-riscv arm i386}

need=()
for a in $arches; do
	case "$a" in
	riscv) need+=(gcc-riscv64-linux-gnu) ;;
	arm) need+=(gcc-arm-linux-gnueabihf) ;;
	i386) ;;
	*) die "unknown cross arch $a (riscv, arm, i386)" ;;
	esac
done
prepare_tree_with "${need[@]}"

results=$CACHE/results
mkdir -p "$results"

# Everything that uses kprobes or sits next to them; what the arch does
# not offer silently stays off (and is listed below).
frag=$(mktemp)
trap 'rm -f "$frag"' EXIT
cat > "$frag" <<'EOF'
CONFIG_MODULES=y
CONFIG_KPROBES=y
CONFIG_KALLSYMS=y
CONFIG_KALLSYMS_ALL=y
CONFIG_DEBUG_FS=y
CONFIG_PERF_EVENTS=y
CONFIG_FTRACE=y
CONFIG_FUNCTION_TRACER=y
CONFIG_FUNCTION_GRAPH_TRACER=y
CONFIG_DYNAMIC_FTRACE=y
CONFIG_FPROBE=y
CONFIG_KPROBE_EVENTS=y
CONFIG_UPROBES=y
CONFIG_UPROBE_EVENTS=y
CONFIG_BPF_SYSCALL=y
CONFIG_BPF_EVENTS=y
CONFIG_BPF_KPROBE_OVERRIDE=y
CONFIG_FUNCTION_ERROR_INJECTION=y
CONFIG_FAIL_FUNCTION=y
CONFIG_FAULT_INJECTION=y
CONFIG_FAULT_INJECTION_DEBUG_FS=y
CONFIG_STACKTRACE=y
CONFIG_KGDB=y
CONFIG_RUNTIME_TESTING_MENU=y
CONFIG_KPROBES_SANITY_TEST=y
CONFIG_KUNIT=y
CONFIG_SAMPLES=y
CONFIG_SAMPLE_KPROBES=m
CONFIG_SAMPLE_KRETPROBES=m
EOF

pass=0 fail=0
for a in $arches; do
	case "$a" in
	riscv)	karch=riscv; cross=riscv64-linux-gnu- ;;
	arm)	karch=arm; cross=arm-linux-gnueabihf- ;;
	i386)	karch=i386; cross= ;;
	esac
	build=$CACHE/build/cross-$a
	log=$results/cross-$a.log
	summary=$results/cross-$a.txt
	: > "$summary"
	mkdir -p "$build"
	kmake() {
		make -C "$TREE" O="$build" ARCH="$karch" CROSS_COMPILE="$cross" \
			CC="ccache ${cross}gcc" "$@"
	}
	say "$a: defconfig + kprobes-related options"
	kmake -s defconfig > "$log" 2>&1
	cp "$build/.config" "$build/.config.defconfig"
	(cd "$build" && "$TREE/scripts/kconfig/merge_config.sh" -m -O "$build" \
		.config.defconfig "$frag") >> "$log" 2>&1
	kmake -s olddefconfig >> "$log" 2>&1
	offered=no
	grep -qx 'CONFIG_KPROBES=y' "$build/.config" && offered=yes
	on= off=
	while read -r l; do
		n=${l%%=*}
		if grep -qx "$l" "$build/.config"; then
			on="$on ${n#CONFIG_}"
		else
			off="$off ${n#CONFIG_}"
		fi
	done < <(grep -E '^CONFIG_' "$frag")
	{
		echo "$a: KPROBES offered: $offered"
		echo "$a: on:$on"
		echo "$a: not offered:${off:- none}"
	} | tee -a "$summary"
	if [ "${CROSS_BUILD:-1}" = 0 ]; then
		# Configuration only: no build, no build lock
		echo "$a: not built (CROSS_BUILD=0)" | tee -a "$summary"
		ok=1
		[ "$offered" = no ] || { echo "$a: KPROBES must not be offered"; ok=0; }
		if [ "$ok" = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
		continue
	fi
	say "$a: building (log: $log)"
	start=$(date +%s)
	# shellcheck disable=SC2086 # CROSS_TARGETS is a list
	if with_cpu make -C "$TREE" O="$build" ARCH="$karch" \
		CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" -j"$JOBS" \
		${CROSS_TARGETS:-} >> "$log" 2>&1; then
		echo "$a: build ok (${CROSS_TARGETS:-all targets}, ${cross}gcc $("${cross}gcc" -dumpfullversion))" |
			tee -a "$summary"
		say "$a: $(( $(date +%s) - start ))s with the wait for the build lock"
		ok=1
	else
		echo "$a: build FAILED ($(( $(date +%s) - start ))s), see $log" | tee -a "$summary"
		grep -E 'error|Error' "$log" | head -n 20
		ok=0
	fi
	if [ "$offered" = yes ]; then
		echo "$a: KPROBES must not be offered: only our backends select HAVE_KPROBE_POINTS"
		ok=0
	fi
	if [ "$ok" = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
# For the cover letter: the summaries of every arch, wrapped at 72 columns
for a in riscv arm i386; do
	[ ! -f "$results/cross-$a.txt" ] || cat "$results/cross-$a.txt"
done | fold -s -w 72 | sed 's/ *$//' > "$results/cross.txt"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
