#!/usr/bin/env bash
# Part of make patches CHECK=1 (after harness/series.sh made the series):
# check out each step of the series in turn and build it incrementally for
# x86_64 and arm64 with the test configuration (allnoconfig plus
# harness/configs, as make build), holding the machine-wide build lock.
# A step passes when kernel and modules build without a warning about
# kprobes.  Writes a table to $CACHE/results/series-steps.txt.
. "$(dirname "$0")/lib.sh"

# One hold of the build lock for all the step builds: taking it once per
# step would queue each of them behind every other build of the machine.
if [ -z "${SERIES_CHECK_LOCKED:-}" ]; then
	say "waiting for the build lock ($CPU_LOCK)"
	SERIES_CHECK_LOCKED=1 exec flock "$CPU_LOCK" "$0" "$@"
fi

S=$CACHE/series
export GIT_DIR=$S/am/.git
git rev-parse -q --verify refs/heads/series > /dev/null ||
	die "no series yet: run make patches first"
STEPS=$S/steps
if [ ! -e "$STEPS/.git" ]; then
	say "checking out a work tree for the step builds (once)"
	rm -rf "$STEPS"
	git worktree add -q --detach "$STEPS" base
fi
wt() { (cd "$STEPS" && env -u GIT_DIR git -c advice.detachedHead=false "$@"); }

arches=${CHECK_ARCHES:-x86_64 arm64}
logs=$CACHE/results/series-steps
mkdir -p "$logs"
rm -f "$logs"/*.log
table=$CACHE/results/series-steps.txt
bad=0
rows=()

build_step() {
	local arch=$1 i=$2 log=$3 karch image cross frag build
	case "$arch" in
	x86_64) karch=x86_64 image=bzImage cross= ;;
	arm64) karch=arm64 image=Image cross=aarch64-linux-gnu- ;;
	esac
	build=$CACHE/build/series-$arch
	mkdir -p "$build"
	frag=$build/.kprobes-fragment
	cat "$REPO/harness/configs/common.config" "$REPO/harness/configs/$arch.config" > "$frag"
	kmake() {
		make -C "$STEPS" O="$build" ARCH="$karch" CROSS_COMPILE="$cross" \
			CC="ccache ${cross}gcc" "$@"
	}
	kmake -s KCONFIG_ALLCONFIG="$frag" allnoconfig > "$log" 2>&1 || return 1
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | while read -r l; do
		if ! grep -qx "$l" "$build/.config"; then echo "${l%%=*}"; fi
	done | sed 's/^CONFIG_//' | paste -sd ' ')
	make -C "$STEPS" O="$build" ARCH="$karch" CROSS_COMPILE="$cross" \
		CC="ccache ${cross}gcc" -j"$JOBS" "$image" modules >> "$log" 2>&1 || return 1
	# Warnings about kprobes (ours, or in code that uses them) fail the
	# step, as in make build; others are the base tree's (a build of the
	# test configuration without the series has them too).
	! grep 'warning:' "$log" | grep -qE 'kprobe|kretprobe|kpt_|kpo_' || return 2
}

mapfile -t commits < <(git rev-list --reverse base..series)
i=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	subject=$(git log -1 --format=%s "$c")
	wt checkout -q -f --detach "$c"
	row=$(printf '%02d %-62.62s' "$i" "$subject")
	for arch in $arches; do
		log=$logs/$(printf '%02d' "$i")-$arch.log
		start=$(date +%s)
		say "step $i/${#commits[@]} $arch: $subject"
		missing=
		rc=0
		build_step "$arch" "$i" "$log" || rc=$?
		t=$(( $(date +%s) - start ))
		case "$rc" in
		0) res="ok" ;;
		2) res="WARN"; bad=1 ;;
		*) res="FAIL"; bad=1 ;;
		esac
		# What the test configuration asks for and this step does not offer
		# yet (before the arch's backend: KPROBES and what depends on it)
		case " $missing " in
		*" KPROBES "*) note="no KPROBES" ;;
		"  ") note="" ;;
		*) note="no ${missing// /,}" ;;
		esac
		row="$row $(printf '%-4s %4ss %-13.13s' "$res" "$t" "$note")"
		if [ "$res" != ok ]; then
			echo "step $i $arch: $res, see $log" >&2
			grep -E 'error|warning:' "$log" | head -n 20 >&2
		fi
	done
	rows+=("$row")
done

id=$(git log --reverse --format=%T base..series | sha1sum | cut -c1-12)
{
	printf '%-65s' "patch"
	for arch in $arches; do printf ' %-24s' "$arch"; done
	echo
	printf '%s\n' "${rows[@]}"
} > "$table.tmp"
cat "$table.tmp"
# The first line says which series the table is for (see series.sh)
{ echo "series $id"; cat "$table.tmp"; } > "$table"
rm -f "$table.tmp"
if [ "$bad" = 0 ]; then
	echo "every step builds on: $arches (logs: $logs)"
else
	echo "some steps do not build cleanly (logs: $logs)"
fi
[ "$bad" = 0 ]
