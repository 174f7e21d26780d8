#!/bin/sh
# Userspace checks, run inside the guest by /init.  Each check prints
# "guest-check: ok <name>" or "guest-check: not ok <name>"; the host counts.
D=/sys/kernel/debug/kprobes
M=/modules

# How a probe may be served, as kprobes/list marks it
SERVED='(  \[(FTRACE|OPTIMIZED)\])?'

ok() { echo "guest-check: ok $1"; }
notok() { echo "guest-check: not ok $1"; }
check() { name=$1; shift; if "$@"; then ok "$name"; else notok "$name"; fi; }

T=/sys/kernel/tracing
mount -t tracefs tracefs $T 2>/dev/null

# --- a probe on kernel init text that runs after the init text is retired --
# The command line has kprobe_event=p:kpt/xbc,_xbc_exit: _xbc_exit() runs
# after kprobe_free_init_mem(), so its probe must be disarmed by then.
echo "guest: kprobes/list at boot:"
cat $D/list
if [ -f $T/available_filter_functions ] &&
   ! grep -q '^_xbc_exit$' $T/available_filter_functions; then
	# kprobe_events refuses what the function tracer does not trace.
	echo "guest: skip boot-init-text-probe-gone (_xbc_exit is notrace here)"
else
	check boot-init-text-probe-gone grep -qE '_xbc_exit\+0x[0-9a-f]+  \[GONE\]' $D/list
fi
echo "guest: kprobe_events at boot: $(cat $T/kprobe_events)"
echo 0 > $T/events/enable
check boot-init-text-probe-removed sh -c "echo > $T/kprobe_events"

# --- trace_kprobe's startup self test (CONFIG_FTRACE_STARTUP_TEST) --------
if dmesg | grep -q 'Testing kprobe tracing:'; then
	# pr_cont()'s "OK" may land on a line of its own
	check ftrace-startup-kprobe-selftest sh -c \
		"dmesg | grep -A2 'Testing kprobe tracing:' | grep -q 'OK\$' &&
		 ! dmesg | grep -q 'Some tests are failed'"
fi

# --- the KUnit suites as modules (CONFIG_KPROBES_SANITY_TEST=m) ------------
# Each runs its suites when loaded; the markers in the kernel log tell the
# host (harness/check-log.sh) which KTAP lines are whose.
for m in test_kprobes test_kretprobes test_kprobes_opt test_kprobes_ftrace; do
	[ -f "/lib/modules/$(uname -r)/$m.ko" ] || continue
	echo "kprobes-kunit-module: begin $m" > /dev/kmsg
	check "kunit-module-$m-loads" modprobe "$m"
	echo "kprobes-kunit-module: end $m" > /dev/kmsg
	check "kunit-module-$m-unloads" rmmod "$m"
done

# --- debugfs: enabled ------------------------------------------------------
check enabled-reads-1 test "$(cat $D/enabled)" = 1
for bad in 2 x -1 z; do
	if printf '%s' "$bad" > $D/enabled 2>/dev/null; then
		notok "enabled-refuses-'$bad'"
	else
		ok "enabled-refuses-'$bad'"
	fi
done
check enabled-unchanged-after-bad-writes test "$(cat $D/enabled)" = 1
echo 0 > $D/enabled
check enabled-write-0 test "$(cat $D/enabled)" = 0
echo 1 > $D/enabled
check enabled-write-1 test "$(cat $D/enabled)" = 1
# Whatever kstrtobool() takes, as in 6.1
for pair in n:0 y:1 off:0 on:1 N:0 Y:1; do
	printf '%s' "${pair%:*}" > $D/enabled 2>/dev/null
	check "enabled-takes-'${pair%:*}'" test "$(cat $D/enabled)" = "${pair#*:}"
done

# --- debugfs: blacklist ----------------------------------------------------
check blacklist-has-entries test "$(wc -l < $D/blacklist)" -gt 10
check blacklist-format grep -qE '^0x[0-9a-f]{16}-0x[0-9a-f]{16}	' $D/blacklist
check blacklist-lists-own-code grep -q '__kprobe_run_pre_handlers' $D/blacklist

# --- the sample module -------------------------------------------------------
dmesg -c > /dev/null
check sample-loads insmod $M/kprobe_example.ko
echo "guest: kprobes/list with kprobe_example loaded:"
cat $D/list
check list-shows-sample grep -qE "^[0-9a-f]{16}  k  kernel_clone\+0x[0-9a-f]+$SERVED\$" $D/list
/bin/true
sh -c true
echo "guest: the sample's output after two forks:"
dmesg | grep -E 'handler_(pre|post)' | head -n 4
check sample-pre-handler-ran sh -c "dmesg | grep -q 'handler_pre: <kernel_clone>'"
check sample-post-handler-ran sh -c "dmesg | grep -q 'handler_post: <kernel_clone>'"

echo "guest: kprobes/stats:"
cat $D/stats
check stats-counts-hits grep -qE '^[0-9a-f]{16}  k  kernel_clone\+0x[0-9a-f]+  hits=[1-9][0-9]* missed=0  point: emulated=[0-9]+ boosted=[0-9]+ stepped=[0-9]+ optimized=[0-9]+ ftrace=[0-9]+ nested=0( not_optimized=[a-z_]+)?$' $D/stats

# Addresses are hidden from readers without the right to see them
echo 2 > /proc/sys/kernel/kptr_restrict
check list-hides-address grep -qE '^0{16}  k  kernel_clone' $D/list
check stats-hides-address grep -qE '^0{16}  k  kernel_clone' $D/stats
check blacklist-hides-address grep -qE '^0x0{16}-0x0{16}	' $D/blacklist
echo 0 > /proc/sys/kernel/kptr_restrict

# Disarmed globally: no hits, and list still shows the probe
echo 0 > $D/enabled
dmesg -c > /dev/null
sh -c true
check disarmed-no-hits test -z "$(dmesg | grep handler_pre)"
echo 1 > $D/enabled
sh -c true
check rearmed-hits sh -c "dmesg | grep -q 'handler_pre: <kernel_clone>'"

check sample-unloads rmmod kprobe_example
check list-empty-after-unload test -z "$(cat $D/list)"

# --- probes on module init text become [GONE] --------------------------------
# The sample probes its own init function, which is freed once it returned.
check init-text-probe-loads insmod $M/kprobe_example.ko symbol=kprobe_example:kprobe_init
echo "guest: kprobes/list with a probe on freed module init text:"
cat $D/list
check init-text-probe-gone grep -qE 'kprobe_init\+0x[0-9a-f]+  \[kprobe_example\]  \[GONE\]' $D/list
check init-text-probe-unloads rmmod kprobe_example
check list-empty-after-gone-unload test -z "$(cat $D/list)"

# --- probes on module text become [GONE] when the module goes --------------
check target-loads insmod $M/kprobe_target.ko
check probe-on-module-loads insmod $M/kprobe_example.ko symbol=kprobe_target:kprobe_target_work
check list-shows-module grep -qE "kprobe_target_work\+0x[0-9a-f]+  \[kprobe_target\]$SERVED\$" $D/list
check target-unloads rmmod kprobe_target
echo "guest: kprobes/list after the probed module was unloaded:"
cat $D/list
check module-probe-gone grep -qE 'kprobe_target_work\+0x[0-9a-f]+  \[kprobe_target\]  \[GONE\]' $D/list
check gone-probe-unregisters rmmod kprobe_example
check list-empty-after-module-gone test -z "$(cat $D/list)"

# --- the kretprobe sample ---------------------------------------------------
dmesg -c > /dev/null
check kretprobe-sample-loads insmod $M/kretprobe_example.ko
sh -c true
echo "guest: the kretprobe sample's output:"
dmesg | grep -E 'ret_handler' | head -n 2
check kretprobe-sample-reports sh -c "dmesg | grep -qE 'ret_handler: kernel_clone returned [0-9]+ and took [0-9]+ ns'"
check kretprobe-sample-listed grep -qE "^[0-9a-f]{16}  r  kernel_clone\+0x[0-9a-f]+$SERVED\$" $D/list
check kretprobe-sample-unloads rmmod kretprobe_example
check list-empty-after-kretprobe-unload test -z "$(cat $D/list)"

# --- kprobe_events and uprobe_events: the tracing interfaces -----------------
if [ -w $T/kprobe_events ]; then
	check kprobe-event-created sh -c "echo 'p:kpt/clone kernel_clone' > $T/kprobe_events"
	check kretprobe-event-created sh -c "echo 'r:kpt/clone_ret kernel_clone ret=\$retval' >> $T/kprobe_events"
	check kprobe-events-listed sh -c "grep -c kernel_clone $D/list | grep -qx 2"
	echo 1 > $T/events/kpt/enable
	sh -c true
	echo 0 > $T/events/kpt/enable
	echo "guest: trace of the kprobe events:"
	grep -E 'clone(_ret)?:' $T/trace | head -n 2
	check kprobe-event-hit grep -qE ' clone: \(kernel_clone\+0x[0-9a-f]+/' $T/trace
	check kretprobe-event-hit grep -qE ' clone_ret: \(.* <- kernel_clone\) ret=' $T/trace
	echo > $T/kprobe_events
	check kprobe-events-removed test -z "$(cat $D/list)"

	# $argN is for function entries only (kprobe_on_func_entry() == 0)
	echo > $T/trace
	check kprobe-event-arg-at-entry sh -c "echo 'p:kpt/vr vfs_read cnt=\$arg3:u32' > $T/kprobe_events"
	echo 1 > $T/events/kpt/vr/enable
	dd if=/proc/version of=/dev/null bs=123 count=1 2>/dev/null
	echo 0 > $T/events/kpt/vr/enable
	check kprobe-event-arg-value grep -q ' vr: (vfs_read+0x[0-9a-f]*/0x[0-9a-f]*) cnt=123$' $T/trace
	echo > $T/kprobe_events
	if echo 'p:kpt/vr8 vfs_read+8 cnt=$arg3' > $T/kprobe_events 2>/dev/null; then
		notok kprobe-event-arg-refused-past-entry
	else
		ok kprobe-event-arg-refused-past-entry
	fi
	if echo 'r:kpt/vr8 vfs_read+8' > $T/kprobe_events 2>/dev/null; then
		notok kretprobe-event-refused-past-entry
	else
		ok kretprobe-event-refused-past-entry
	fi
	echo > $T/kprobe_events

	# The idle loop runs with RCU not watching (after ct_idle_enter()):
	# hits that come through ftrace, a detour or the return trampoline
	# make RCU watch for the handlers there, as a breakpoint's exception
	# entry does.  Any slip is a "suspicious RCU usage" splat.  Which of
	# these runs depends on the CPU; arm64's idle functions are noinstr.
	if [ "$(uname -m)" = x86_64 ]; then
		echo > $T/trace
		n=0
		for f in arch_cpu_idle default_idle amd_e400_idle mwait_idle; do
			grep -q " $f\$" /proc/kallsyms || continue
			echo "p:kpt/i_$f $f" >> $T/kprobe_events 2>/dev/null &&
				n=$((n + 1))
			echo "r:kpt/r_$f $f" >> $T/kprobe_events 2>/dev/null
		done
		check idle-probes-created test "$n" -gt 0
		echo 1 > $T/events/kpt/enable
		# Long enough for the optimizer to optimize the entry probes
		sleep 2
		echo 0 > $T/events/kpt/enable
		echo "guest: kprobes/list with the idle probes:"
		cat $D/list
		check idle-kprobe-hit grep -q ' i_[a-z0-9_]*: (' $T/trace
		check idle-kretprobe-hit grep -q ' r_[a-z0-9_]*: (' $T/trace
		echo > $T/kprobe_events
	fi

	# Compiler-made copies (foo.part.0, foo.cold, ...) of blacklisted
	# functions are blacklisted too.
	cut -f2 $D/blacklist | grep -v '\.' | sort -u > /tmp/bl-bases
	grep -E ' [tT] [^ ]+\.(part|cold|isra|constprop|lto_priv)' /proc/kallsyms |
		cut -d' ' -f3 | sort -u > /tmp/copies
	n=0 bad=0
	while read -r copy; do
		grep -qx "${copy%%.*}" /tmp/bl-bases || continue
		n=$((n + 1))
		if echo "p:kpt/cp $copy" > $T/kprobe_events 2>/dev/null; then
			echo "guest: copy of a blacklisted function accepted: $copy"
			bad=$((bad + 1))
			echo > $T/kprobe_events
		fi
	done < /tmp/copies
	echo "guest: $n copies of blacklisted functions, $bad accepted"
	check blacklisted-copies-refused test "$bad" = 0
	if grep -q ' nmi_handle.part.0$' /proc/kallsyms; then
		if echo 'p:kpt/nmi nmi_handle.part.0' > $T/kprobe_events 2>/dev/null; then
			notok nmi-handle-copy-refused
			echo > $T/kprobe_events
		else
			ok nmi-handle-copy-refused
		fi
	fi

	# lockdep_hardirqs_on_prepare() is what the exit of a breakpoint
	# exception calls when lockdep's interrupt state was on at its entry,
	# and that state stays on where lockdep does not run: inside its
	# recursion guard on arm64 (lock_acquire() around __lock_acquire()),
	# and on both once debug_locks is off (after any lockdep report).  A
	# probe on it there recursed until the stack overflowed (x86: seen
	# after a test's lockdep report); both refuse it.  The kernel survives
	# a workload with a probe on __lock_acquire(), which is hit.
	# lockdep.c is built without the function tracer's calls: with
	# dynamic ftrace kprobe_events refuses both before kprobes sees them
	# (KUnit's kpt_register_refused_symbol still checks the refusal).
	if grep -q ' lockdep_hardirqs_on_prepare$' /proc/kallsyms &&
	   [ ! -f $T/available_filter_functions ]; then
		echo > $T/trace
		if echo 'p:kpt/ohp lockdep_hardirqs_on_prepare' > $T/kprobe_events 2>/dev/null; then
			ohp=accepted
		else
			ohp=refused
		fi
		echo "guest: a kprobe on lockdep_hardirqs_on_prepare: $ohp"
		check lockdep-on-prepare-refused test "$ohp" = refused
		check lock-acquire-probe-created sh -c "echo 'p:kpt/la __lock_acquire' >> $T/kprobe_events"
		echo 1 > $T/events/kpt/enable
		for i in 1 2 3 4 5; do
			ls / > /dev/null
			cat /proc/self/status > /dev/null
		done
		echo 0 > $T/events/kpt/enable
		grep -E '^ *(ohp|la) ' $T/kprobe_profile
		check lock-acquire-probe-hit sh -c "grep -E '^ *la +[1-9]' $T/kprobe_profile"
		echo > $T/kprobe_events
		check lockdep-probes-removed test -z "$(cat $D/list)"
	fi

	# A probe on module init text that runs after the module went live
	# (async init work): disarmed when the init text is retired.
	check module-init-probe-deferred sh -c "echo 'p:kpt/ai kprobe_target:kprobe_target_async_work' > $T/kprobe_events"
	echo 1 > $T/events/kpt/ai/enable
	check async-init-module-loads insmod $M/kprobe_target.ko async=1
	echo "guest: kprobes/list after the async module init:"
	cat $D/list
	check async-init-probe-gone grep -qE 'kprobe_target_async_work\+0x0  \[kprobe_target\]  \[GONE\]' $D/list
	echo 0 > $T/events/kpt/ai/enable
	echo > $T/kprobe_events
	check async-init-module-unloads rmmod kprobe_target

	# A probe that waits for a module, on a function the module marks
	# NOKPROBE_SYMBOL: refused when the module comes (its blacklist is
	# known before trace_kprobe registers the waiting probes).  The
	# blacklist entry of its init text goes with the init text.
	if [ -e /guest/kprobe_nokprobe.ko ]; then
		# (kpn_init_forbidden's entry, once its text is freed, would be
		# listed by address only: count the entries.)
		nbl=$(wc -l < $D/blacklist)
		check module-blacklist-probe-deferred sh -c "echo 'p:kpt/nk kprobe_nokprobe:kpn_forbidden' > $T/kprobe_events"
		echo 1 > $T/events/kpt/nk/enable
		check module-blacklist-module-loads insmod /guest/kprobe_nokprobe.ko
		check module-blacklist-probe-refused sh -c "! grep -q kpn_forbidden $D/list"
		check module-blacklist-listed grep -q 'kpn_forbidden' $D/blacklist
		check module-blacklist-init-entry-gone test "$(wc -l < $D/blacklist)" = $((nbl + 1))
		echo 0 > $T/events/kpt/nk/enable 2>/dev/null
		echo > $T/kprobe_events
		check module-blacklist-module-unloads rmmod kprobe_nokprobe
		check module-blacklist-entries-gone test "$(wc -l < $D/blacklist)" = "$nbl"
	fi

	# Unwinding another task's kretprobed frames while the kretprobes
	# come and go (issue 7 item 8; make check-deep runs it under KASAN):
	# the reader of a FIFO fed one byte at a time loops through
	# vfs_read() and pipe_read() and mostly sleeps in pipe_read(), off the
	# CPU, with an instance of each kretprobe on its list.  Its
	# /proc/PID/stack is read all the time, so the unwinder walks those
	# instances from another task while the kretprobes are registered,
	# unregistered with the instances still out, and their pools freed
	# when the reader returns.  Never a freed instance; and the walk finds
	# the real return addresses: a sleeping reader's stack shows
	# vfs_read() under pipe_read(), not the trampoline.  (A reader that
	# wakes up meanwhile may show the trampoline, as the walk of a
	# running task gets no answer: those are counted, not failed.)
	rm -f /tmp/ufifo /tmp/unwind-done /tmp/unwind-stacks
	busybox mkfifo /tmp/ufifo
	dd if=/tmp/ufifo of=/dev/null bs=1 2>/dev/null &
	rpid=$!
	dd if=/dev/zero of=/tmp/ufifo bs=1 count=100000000 2>/dev/null &
	wpid=$!
	(
		while [ ! -e /tmp/unwind-done ]; do
			cat /proc/$rpid/stack > /dev/null 2>&1
		done
	) &
	spid=$!
	i=0
	while [ $i -lt 20 ]; do
		echo 'r:kpt/rs vfs_read' > $T/kprobe_events
		echo 'r:kpt/rp pipe_read' >> $T/kprobe_events
		echo 1 > $T/events/kpt/enable
		for j in 1 2 3 4 5 6 7 8 9 10; do
			cat /proc/$rpid/stack >> /tmp/unwind-stacks 2>/dev/null
			echo -- >> /tmp/unwind-stacks
		done
		echo 0 > $T/events/kpt/enable
		echo > $T/kprobe_events
		i=$((i + 1))
	done
	touch /tmp/unwind-done
	wait $spid
	kill $wpid
	wait $wpid 2>/dev/null
	wait $rpid 2>/dev/null
	# Of the stacks read in pipe_read(): those with vfs_read() under it,
	# and those with the trampoline
	awk '/pipe_read\+/ { p = 1 } /vfs_read\+/ { v = 1 }
		/kretprobe_trampoline/ { t = 1 }
		/^--$/ { if (p) { seen += v; tramp += t }; p = v = t = 0 }
		END { print seen + 0, tramp + 0 }' /tmp/unwind-stacks > /tmp/unwind-counts
	read -r seen tramp < /tmp/unwind-counts
	echo "guest: foreign unwind: $seen stacks in pipe_read() with vfs_read() under it, $tramp with the trampoline"
	check foreign-stack-unwind-survives test -z "$(cat $D/list)"
	check foreign-stack-unwind-recovers test "$seen" -gt 0

	off=$(cat /uprobe_offset)
	echo > $T/trace
	check uprobe-event-created sh -c "echo 'p:kpt/bb_entry /bin/busybox:$off' > $T/uprobe_events"
	echo 1 > $T/events/kpt/bb_entry/enable
	/bin/true
	echo 0 > $T/events/kpt/bb_entry/enable
	echo "guest: trace of the uprobe event at busybox+$off:"
	grep 'bb_entry:' $T/trace | head -n 1
	check uprobe-event-hit grep -q 'bb_entry: (' $T/trace
	echo > $T/uprobe_events

	# uprobes on literal loads, which read user memory (arm64)
	ulit=/guest/uprobe-literal
	if [ -x $ulit ]; then
		echo > $T/trace
		grep '^ulit_' $ulit.offsets > /tmp/ulit.probes
		check uprobe-literal-probe-points test "$(wc -l < /tmp/ulit.probes)" = 3
		while read -r name off; do
			check "uprobe-$name-created" sh -c \
				"echo 'p:ulit/$name $ulit:$off' >> $T/uprobe_events"
		done < /tmp/ulit.probes
		echo 1 > $T/events/ulit/enable
		$ulit
		rc=$?
		echo 0 > $T/events/ulit/enable
		echo "guest: $ulit exited with $rc (42: the literals were loaded right); trace:"
		grep -E 'ulit_[a-z_]+: \(' $T/trace
		check uprobe-literal-result test $rc = 42
		while read -r name off; do
			check "uprobe-$name-hit" grep -q " $name: (" $T/trace
		done < /tmp/ulit.probes
		echo > $T/uprobe_events
	else
		echo "guest: no $ulit: the literal-load uprobe checks are arm64 only"
	fi
else
	notok tracing-interfaces-available
fi

# --- jump optimization: the sysctl and [OPTIMIZED] ---------------------------
S=/proc/sys/debug/kprobes-optimization
if [ -e $S ]; then
	check opt-sysctl-reads-1 test "$(cat $S)" = 1
	for bad in 2 -1 x 10; do
		if printf '%s' "$bad" > $S 2>/dev/null; then
			notok "opt-sysctl-refuses-'$bad'"
		else
			ok "opt-sysctl-refuses-'$bad'"
		fi
	done
	check opt-sysctl-unchanged-after-bad-writes test "$(cat $S)" = 1
	# Function entries whose first instructions can usually be relocated;
	# with the function tracer, the instruction after ENDBR and the call
	# to __fentry__ (an entry itself is served by ftrace)
	n=0
	for fn in vfs_read vfs_write do_sys_openat2 ksys_read ksys_write \
		  vfs_read+9 vfs_write+9 ksys_read+9 ksys_write+9; do
		n=$((n + 1))
		echo "p:kpt/o$n $fn" >> $T/kprobe_events 2>/dev/null &&
			echo 1 > $T/events/kpt/o$n/enable
	done
	optimized() { grep -c 'OPTIMIZED' $D/list; }
	# The optimizer waits for an RCU-tasks grace period: up to 20 s (a
	# KASAN kernel under TCG), and the wait is logged.
	opt_wait() {
		i=0
		while [ "$(optimized)" = 0 ] && [ $i -lt 200 ]; do usleep 100000; i=$((i + 1)); done
		echo "guest: optimized after $((i * 100)) ms"
	}
	opt_wait
	echo "guest: kprobes/list with optimized probes:"
	cat $D/list
	check opt-probes-optimized test "$(optimized)" -gt 0
	echo 0 > $S
	check opt-sysctl-0-unoptimizes-at-once test "$(optimized)" = 0
	cat /proc/version > /dev/null
	check opt-sysctl-0-reads-0 test "$(cat $S)" = 0
	echo 1 > $S
	opt_wait
	check opt-sysctl-1-optimizes-again test "$(optimized)" -gt 0
	echo 0 > $D/enabled
	check opt-disarmed-not-optimized test "$(optimized)" = 0
	echo 1 > $D/enabled
	echo 0 > $T/events/enable
	echo > $T/kprobe_events
	check opt-probes-removed test -z "$(cat $D/list)"

	# arm64: an optimized probe inside a user access window (the entry
	# of __arch_copy_to_user(), which raw_copy_to_user() calls between
	# uaccess_ttbr0_enable() and uaccess_ttbr0_disable() with software
	# PAN) whose pre_handler reads user memory itself: the copy it
	# interrupted still reaches user memory afterwards, and reads work.
	if [ "$(uname -m)" = aarch64 ] && [ -e /guest/kprobe_uaccess.ko ]; then
		cat /proc/version > /tmp/version-0
		check uaccess-window-module-loads insmod /guest/kprobe_uaccess.ko
		opt_wait
		check uaccess-window-probe-optimized \
			grep -q '__arch_copy_to_user+0x[0-9a-f]*  \[OPTIMIZED\]' $D/list
		cat /proc/version > /tmp/version-1
		check uaccess-window-copy-intact cmp -s /tmp/version-0 /tmp/version-1
		check uaccess-window-handler-read-user \
			test "$(cat /sys/module/kprobe_uaccess/parameters/user_reads)" -gt 0
		check uaccess-window-module-unloads rmmod kprobe_uaccess
	fi

	# A point the optimizer refuses stays on its breakpoint, and
	# kprobes/stats says why: the jump optimizer's test functions, where
	# they are built in (x86_64: a call in the region; arm64: a load with
	# an exception-table entry)
	case "$(uname -m)" in
	x86_64) refused=kpo_call+4 why=unrelocatable ;;
	*) refused=kpo_extable why=extable ;;
	esac
	if [ -f $T/available_filter_functions ] &&
	   ! grep -q "^${refused%+*}\$" $T/available_filter_functions; then
		# kprobe_events refuses what the function tracer does not
		# trace: the optimizer's assembly functions are not traced
		echo "guest: skip opt-refusal-in-stats (${refused%+*} is notrace here)"
	elif grep -q " ${refused%+*}\$" /proc/kallsyms; then
		echo "p:kpt/refused $refused" > $T/kprobe_events
		echo 1 > $T/events/kpt/refused/enable
		i=0
		while ! grep -q 'not_optimized=' $D/stats && [ $i -lt 200 ]; do
			usleep 100000; i=$((i + 1))
		done
		grep kpo_ $D/stats
		check opt-refusal-in-stats grep -q "^[0-9a-f]\{16\}  k  ${refused%+*}+.* not_optimized=$why\$" $D/stats
		check opt-refused-not-optimized sh -c "! grep -q OPTIMIZED $D/list"
		echo 0 > $T/events/enable
		echo > $T/kprobe_events
	fi

	# A probe on module text, optimized (on arm64 with its detour from
	# the module area) unless ftrace serves it, hit by the module's exit,
	# then gone with the module
	insmod $M/kprobe_target.ko
	echo 'p:kpt/mt kprobe_target:kprobe_target_work' > $T/kprobe_events
	echo 1 > $T/events/kpt/mt/enable
	if ! grep 'kprobe_target_work+0x0 ' $D/list | grep -q FTRACE; then
		opt_wait
		check opt-module-probe-optimized grep -q 'kprobe_target_work+0x0  \[kprobe_target\]  \[OPTIMIZED\]$' $D/list
		# arm64: the detour's module_alloc() page is code kallsyms
		# (and kernel_text_address()) know of
		if [ "$(uname -m)" = aarch64 ]; then
			check opt-module-detour-page-in-kallsyms grep -q ' t kprobe_optinsn_page.*\[__builtin__kprobes\]' /proc/kallsyms
		fi
	fi
	echo > $T/trace
	check opt-module-unloads rmmod kprobe_target
	# (The trace is read after the module went: its ip no longer has a
	# symbol.  The trace was empty before the rmmod.)
	check opt-module-probe-hit grep -q ' mt: (' $T/trace
	echo "guest: kprobes/list after the module with an optimized probe went:"
	cat $D/list
	check opt-module-probe-gone grep -qE 'kprobe_target_work\+0x0  \[kprobe_target\]  \[GONE\]' $D/list
	echo 0 > $T/events/kpt/mt/enable
	echo > $T/kprobe_events
	check opt-module-probe-removed test -z "$(cat $D/list)"
	if [ "$(uname -m)" = aarch64 ]; then
		# The page goes with its last detour, after grace periods
		i=0
		while grep -q ' kprobe_optinsn_page' /proc/kallsyms && [ $i -lt 200 ]; do
			usleep 100000; i=$((i + 1))
		done
		check opt-module-detour-page-freed sh -c "! grep -q ' kprobe_optinsn_page' /proc/kallsyms"
	fi
	# Only the administrator changes it.
	check opt-sysctl-mode sh -c "ls -l $S | grep -q '^-rw-r--r--'"
fi

# --- a kprobe on a livepatched function (x86_64, VARIANT=ftrace) -------------
# livepatch-sample sends cmdline_proc_show() to its own version through an
# IPMODIFY ftrace_ops, and kprobe_events probes on that entry are served by
# ftrace too: they fire and the patch stays, whichever came first.  A kprobe
# with a post_handler would need an IPMODIFY ftrace_ops of its own there:
# refused, and the patch stays.
LP=/sys/kernel/livepatch/livepatch_sample
# A transition waits for every task to leave the patched function: 20 s.
# A disabled patch then goes away with its directory.
lp_in_transition() { [ -e $LP ] && [ "$(cat $LP/transition)" != 0 ]; }
lp_settle() {
	i=0
	while lp_in_transition && [ $i -lt 200 ]; do
		usleep 100000; i=$((i + 1))
	done
	echo "guest: livepatch transition over after $((i * 100)) ms"
	! lp_in_transition
}
lp_applied() { grep -q 'this has been live patched' /proc/cmdline; }
if [ -f "/lib/modules/$(uname -r)/livepatch-sample.ko" ] && [ -w $T/kprobe_events ]; then
	echo > $T/trace
	echo 'p:kpt/lp0 cmdline_proc_show' > $T/kprobe_events
	echo 1 > $T/events/kpt/lp0/enable
	check livepatch-loads-under-probe insmod "/lib/modules/$(uname -r)/livepatch-sample.ko"
	check livepatch-transition-over lp_settle
	check livepatch-applied-under-probe lp_applied
	check livepatch-earlier-probe-hit grep -q ' lp0: (' $T/trace
	echo 0 > $T/events/kpt/enable
	echo > $T/kprobe_events
	echo > $T/trace
	echo 'p:kpt/lp1 cmdline_proc_show' > $T/kprobe_events
	echo 'r:kpt/lp1r cmdline_proc_show' >> $T/kprobe_events
	echo 1 > $T/events/kpt/enable
	check livepatch-applied-under-later-probe lp_applied
	check livepatch-later-probe-hit grep -q ' lp1: (' $T/trace
	check livepatch-kretprobe-hit grep -q ' lp1r: (' $T/trace
	if insmod $M/kprobe_example.ko symbol=cmdline_proc_show 2>/dev/null; then
		notok livepatch-post-handler-probe-refused
		rmmod kprobe_example
	else
		ok livepatch-post-handler-probe-refused
	fi
	check livepatch-applied-after-refusal lp_applied
	# Registered while kprobes are disarmed, that kprobe cannot be armed
	# when they are armed again: the write to kprobes/enabled says so,
	# and arms the others (6.1 does both).  The kprobe_events probes share
	# its point, which is armed as a whole or not at all (as in 6.1): they
	# fire again once it is gone.
	echo 0 > $D/enabled
	check livepatch-post-handler-probe-loads-disarmed \
		insmod $M/kprobe_example.ko symbol=cmdline_proc_show
	if printf 1 > $D/enabled 2>/dev/null; then
		notok enabled-write-reports-unarmable-probe
	else
		ok enabled-write-reports-unarmable-probe
	fi
	echo "guest: kprobes/list after arming all but one:"
	cat $D/list
	check enabled-reads-1-after-partial-arm test "$(cat $D/enabled)" = 1
	check livepatch-applied-after-partial-arm lp_applied
	check livepatch-unarmed-probe-unloads rmmod kprobe_example
	echo > $T/trace
	cat /proc/cmdline > /dev/null
	check livepatch-point-armed-after-unarmable-probe grep -q ' lp1: (' $T/trace
	echo 0 > $T/events/kpt/enable
	echo > $T/kprobe_events
	echo 0 > $LP/enabled
	check livepatch-disable-transition-over lp_settle
	check livepatch-reverted sh -c '! grep -q "this has been live patched" /proc/cmdline'
	check livepatch-unloads rmmod livepatch_sample
	check livepatch-probes-removed test -z "$(cat $D/list)"
fi

# --- a kretprobe on a function the graph tracer hooks too (VARIANT=ftrace) --
# On x86 the graph tracer's ftrace_ops, newer than kprobes', takes the
# return first: the kretprobe saves return_to_handler, but its event shows
# the real caller (get_kretprobe_retaddr() looks behind the other hook),
# and an unwinder inside the function undoes the kretprobe's trampoline,
# then the graph tracer's.  On arm64 the kretprobe's BRK comes before the
# ftrace call and takes the return first, and the unwinder undoes them in
# the other order.  The stack traces come from a probe on seq_puts(),
# which cmdline_proc_show() calls; they reach seq_read_iter() only behind
# both trampolines (and show cmdline_proc_show() itself on x86 only: on
# arm64 a probe on a function's first instruction sees its caller in LR,
# which no frame record holds yet).  dd reads with read(), where cat
# may use sendfile().
if grep -q function_graph $T/available_tracers 2>/dev/null &&
   [ -w $T/kprobe_events ]; then
	echo 'r:kpt/gr cmdline_proc_show' > $T/kprobe_events
	echo 'p:kpt/gs seq_puts' >> $T/kprobe_events
	echo stacktrace > $T/events/kpt/gs/trigger
	echo 1 > $T/events/kpt/enable
	echo cmdline_proc_show > $T/set_graph_function
	echo function_graph > $T/current_tracer
	echo > $T/trace
	dd if=/proc/cmdline of=/dev/null 2>/dev/null
	# Read before the switch back to nop empties the buffer.
	cat $T/trace > /tmp/graph-kretprobe.txt
	echo nop > $T/current_tracer
	echo > $T/set_graph_function
	echo "guest: kretprobe under the graph tracer:"
	grep -B14 'gs: (' /tmp/graph-kretprobe.txt | head -n 16
	grep 'gr: (' /tmp/graph-kretprobe.txt | head -n 2
	check kretprobe-under-graph-tracer-real-caller \
		grep -q 'gr: (seq_read_iter+' /tmp/graph-kretprobe.txt
	check kretprobe-under-graph-tracer-no-trampoline \
		sh -c "! grep -q 'gr: (return_to_handler' /tmp/graph-kretprobe.txt"
	check kretprobe-under-graph-tracer-stack-behind-hooks sh -c \
		"grep -q '=> seq_read_iter' /tmp/graph-kretprobe.txt &&
		 grep -q '=> vfs_read' /tmp/graph-kretprobe.txt &&
		 ! grep -qE '=> (return_to_handler|kretprobe_trampoline)' \
			/tmp/graph-kretprobe.txt"
	if [ "$(uname -m)" = x86_64 ]; then
		check kretprobe-under-graph-tracer-stack-shows-function \
			grep -q '=> cmdline_proc_show' /tmp/graph-kretprobe.txt
	fi
	echo '!stacktrace' > $T/events/kpt/gs/trigger
	echo 0 > $T/events/kpt/enable
	echo > $T/kprobe_events
fi

# --- the in-tree consumers from userspace: kprobe_events, the perf kprobe PMU,
# BPF, fail_function (each skipped when the kernel lacks it) -------------------
[ -f /guest/consumers.sh ] && sh /guest/consumers.sh

# --- a fault in a stepped instruction (arm64) ----------------------------------
# kprobe_step_fault probes the stores of the copy to user memory, copies into
# untouched pages and checks each fault is handled as an unprobed one.
if [ -e /guest/kprobe_step_fault.ko ]; then
	dmesg -c > /dev/null
	check step-fault-module-loads insmod /guest/kprobe_step_fault.ko
	check step-fault-as-unprobed sh -c "echo 1 > /sys/kernel/debug/kprobe_step_fault/run"
	dmesg | grep kprobe_step_fault
	check step-fault-module-unloads rmmod kprobe_step_fault
	check list-empty-after-step-fault test -z "$(cat $D/list)"
else
	echo "guest: no kprobe_step_fault.ko: the step-fault check is arm64 only"
fi

# --- probes at scale on the kernel's own functions -----------------------------
# Ten thousand kprobes, then a thousand kretprobes, on distinct functions
# taken from kallsyms (every_function's candidates), through kprobe_events:
# kprobes/list must list exactly them, and nothing once they are removed.
# (That they all fire is lib/test_kprobes_scale.c's, on functions it calls.)
if [ -x /guest/bin/every_function ] && [ -w $T/kprobe_events ]; then
	echo > $T/kprobe_events
	/guest/bin/every_function p 0 10000 1 0 list | grep -v '^guest-everyfn-refused'
	/guest/bin/every_function r 0 10000 10 0 list | grep -v '^guest-everyfn-refused'
else
	echo "guest: skip probes at scale (no every_function or kprobe_events)"
fi

# --- bad input to every file of ours, as root and as nobody -------------------
if [ -x /guest/bin/badinput ]; then
	/guest/bin/badinput
else
	notok badinput-built
fi

# --- registration under allocation failures ----------------------------------
[ -f /guest/faults.sh ] && sh /guest/faults.sh

# --- nothing of ours leaked (KUnit runs included) -----------------------------
if [ -e /sys/kernel/debug/kmemleak ]; then
	# kmemleak reports only objects older than five seconds.
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > /tmp/leaks
	echo "guest: kmemleak: $(grep -c 'unreferenced object' /tmp/leaks) unreferenced objects in all"
	grep -B2 -A20 -E 'kprobe|kretprobe|kpt_' /tmp/leaks | head -n 40
	check no-leaks-from-kprobes sh -c "! grep -qE 'kprobe|kretprobe|kpt_' /tmp/leaks"
else
	notok kmemleak-available
fi

echo "guest-check: end"
