#!/bin/sh
# Guest script of harness/run-consumers.sh (and of harness/check.sh on the
# plain kernel): on our kernel every guest check
# (harness/guest-checks.sh, the consumer programs among them), on the stock
# one only the consumer programs (the rest checks our own debugfs files);
# then ftracetest.
if [ "$(cat /guest/kernel)" = ours ]; then
	# Our kernel: every guest check (the consumers among them)
	sh /guest/checks.sh | grep -v '^guest-check: end$'
else
	sh /guest/consumers.sh
fi
sh /guest/ftracetest.sh
echo "guest-check: end"
