#!/usr/bin/env bash
# make docs: build the trace documentation (make SPHINXDIRS=trace htmldocs)
# of the patched tree and fail on any warning about our
# Documentation/trace/kprobes.rst or about a file of ours it pulls in;
# run scripts/kernel-doc -none over our sources, which must say nothing.
. "$(dirname "$0")/lib.sh"

prepare_tree_with python3-sphinx python3-sphinx-rtd-theme
out=$CACHE/build/docs
log=$CACHE/results/docs.log
mkdir -p "$out" "$CACHE/results"
bad=0

say "make SPHINXDIRS=trace htmldocs (log: $log)"
start=$(date +%s)
if ! with_cpu make -C "$TREE" O="$out" SPHINXDIRS=trace htmldocs > "$log" 2>&1; then
	tail -n 20 "$log"
	echo "docs: htmldocs failed, see $log"
	bad=1
fi
ours_re=$(our_files | sed 's/[.]/\\./g' | paste -sd '|')
warn=$(grep -E 'WARNING|ERROR|warning:|error:' "$log" | grep -E "$ours_re" || true)
if [ -n "$warn" ]; then
	echo "$warn"
	bad=1
fi
echo "docs: htmldocs of Documentation/trace in $(( $(date +%s) - start ))s," \
	"$(grep -cE 'WARNING|ERROR' "$log" || true) warnings in all," \
	"$(echo -n "$warn" | grep -c . || true) about our files"

for f in $(our_files | grep -E '\.(c|h)$'); do
	w=$(cd "$TREE" && perl scripts/kernel-doc -none "$f" 2>&1 || true)
	[ -z "$w" ] || { echo "$w"; bad=1; }
done
[ "$bad" = 0 ] && echo "docs: kernel-doc -none: nothing to say about our files"
[ "$bad" = 0 ]
