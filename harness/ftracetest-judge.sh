#!/usr/bin/env bash
# Judge the ftracetest part of a guest console log (harness/guest/
# ftracetest.sh): save its per-case results, print them, and judge them
# against the stock kernel built with the same configuration.
#
#   ftracetest-judge.sh LOG TABLE [STOCK-TABLE]
#
# TABLE receives one "RESULT DIR/CASE.tc" line per case.  STOCK-TABLE is
# such a table measured on the stock kernel (harness/ftracetest-stock-*.txt;
# none to judge a stock run).  A case passes when it passes or fails
# expectedly (XFAIL); with STOCK-TABLE, every case that passes on stock
# must pass here, and a case may fail (FAIL, UNDEFINED, or no result) only
# as it does on stock: a configuration may lack what a case needs without
# the case saying so.  UNSUPPORTED, UNRESOLVED and UNTESTED cases are
# listed, neither passed nor failed.  Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

log=$1 table=$2 stock=${3:-}
[ -z "$stock" ] || [ -f "$stock" ] || die "no stock results $stock"

tr -d '\r' < "$log" | sed -n 's/^guest-ftracetest: //p' | grep -v '^summary' > "$table" || true
echo "ftracetest ($(basename "$table" .txt)):"
sed 's/^/  /' "$table"
tr -d '\r' < "$log" | sed -n 's/^guest-ftracetest: summary /  /p'

# The result of case $1 in table $2, MISSING if it has none
result() { sed -n "s|^\([A-Z]*\) $1\$|\1|p" "$2" | grep . || echo MISSING; }

passed=0 failed=0
cases=$(cut -d' ' -f2 "$table")
[ -z "$stock" ] || cases=$(printf '%s\n%s\n' "$cases" "$(cut -d' ' -f2 "$stock")" | sort -u)
for tc in $cases; do
	res=$(result "$tc" "$table")
	want=
	[ -z "$stock" ] || want=$(result "$tc" "$stock")
	case $res in
	PASS|XFAIL)
		passed=$((passed + 1)) ;;
	FAIL|UNDEFINED|MISSING)
		if [ -n "$want" ] && [ "$want" = "$res" ]; then
			echo "  $res on stock too: $tc"
		else
			echo "  not ok: $tc ($res${want:+, stock: $want})"
			failed=$((failed + 1))
		fi ;;
	*)
		if [ "$want" = PASS ]; then
			echo "  not ok: $tc ($res, passes on stock)"
			failed=$((failed + 1))
		fi ;;
	esac
done
[ -n "$cases" ] || { echo "  no ftracetest results"; failed=$((failed + 1)); }
[ -z "$stock" ] || echo "ftracetest: judged against $(basename "$stock"): $passed passed, $failed failed"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
