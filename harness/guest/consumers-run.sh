#!/bin/sh
# Guest script of harness/run-consumers.sh: the consumer programs, then
# ftracetest.  Runs on any kernel (ours or stock): it checks nothing of our
# implementation's own debugfs.
sh /guest/consumers.sh
sh /guest/ftracetest.sh
echo "guest-check: end"
