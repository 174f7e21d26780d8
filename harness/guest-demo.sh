#!/bin/sh
# The demo, inside the guest: load the sample, trigger it, show the results.
D=/sys/kernel/debug/kprobes
echo "demo: insmod kprobe_example.ko (probes kernel_clone)"
insmod /modules/kprobe_example.ko
echo "demo: forking a process to hit the probe"
sh -c true
echo "demo: the handlers' output:"
dmesg | grep -E 'kprobe_init|handler_(pre|post)' | tail -n 4
echo "demo: cat $D/list"
cat $D/list
rmmod kprobe_example
echo "demo: after rmmod, $D/list has $(wc -l < $D/list) lines; powering off"
