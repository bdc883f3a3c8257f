#!/bin/sh
# SPDX-License-Identifier: MIT
# slurm.sh - extras/slurm-shards.sh on a real scheduler: a one-node Slurm
# cluster started here (Debian's slurm-wlm 22.05 and munge, as root, no
# systemd: munged on a private socket and key, slurmctld and slurmd in
# the foreground, stopped by their PIDs on exit), its job array builds 3
# shards of a small tree and the dependent job merges them into the
# one-pass image (imginfo diff); a failing shard cancels the merge
# (--kill-on-invalid-dep=yes) and the script says so with exit 1 and no
# OUTPUT. Skipped, counted, where Slurm or munge is missing or not root,
# failed instead when SQPACK_REQUIRE_SLURM=yes (CI).
. "$top_srcdir/tests/lib/common.sh"
DIR2IMG=${DIR2IMG:-$SQP_BIN/dir2img}
IMGINFO=${IMGINFO:-$SQP_BIN/imginfo}
SCRIPT=$top_srcdir/extras/slurm-shards.sh

# cannot WHY: skip, or fail where CI requires Slurm.
cannot() { skip_unless_required SQPACK_REQUIRE_SLURM "the Slurm test" "$1"; }
for t in munged slurmctld slurmd sbatch sinfo scontrol; do
	command -v $t > /dev/null 2>&1 || cannot "$t not installed (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" = 0 ] || cannot "slurmd runs jobs as root here: needs root"
umask 022
export SOURCE_DATE_EPOCH=1700000000

C=$SCRATCH/cluster T=$SCRATCH
mkdir -p "$C/state" "$C/spool" "$T/t/a" "$T/t/b" "$T/t/empty" || exit 99
i=1
while [ $i -le 6 ]; do
	head -c $((i * 5000)) /dev/urandom > "$T/t/a/f$i" && seq 1 $((i * 900)) > "$T/t/b/n$i" || exit 99
	i=$((i + 1))
done
ln "$T/t/a/f2" "$T/t/b/link2" && cp "$T/t/a/f4" "$T/t/b/copy4" || exit 99

# The daemons, stopped by PID however the script ends (common.sh's
# cleanup then removes the scratch directory).
pids=
stop_cluster() {
	for p in $pids $(cat "$C/munged.pid" 2>/dev/null); do
		kill "$p" 2>/dev/null
	done
	for p in $pids; do
		wait "$p" 2>/dev/null
	done
	cleanup
}
trap stop_cluster EXIT

host=$(hostname -s)
# Ports of this run's own, so that two runs on one machine do not meet.
port=$((20000 + $$ % 5000 * 2))
dd if=/dev/urandom of="$C/munge.key" bs=1024 count=1 2> /dev/null && chmod 400 "$C/munge.key" &&
cat > "$C/slurm.conf" <<CONF || exit 99
ClusterName=sqpacktest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$C/munge.sock
CredType=cred/munge
StateSaveLocation=$C/state
SlurmdSpoolDir=$C/spool
SlurmctldPidFile=$C/slurmctld.pid
SlurmdPidFile=$C/slurmd.pid
SlurmctldLogFile=$C/slurmctld.log
SlurmdLogFile=$C/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
# sbatch --wait polls every 2 s only while MinJobAge/2 is not above 2;
# past it, its sleeps grow to 8 s (ten seconds a wait). Five seconds is
# the age that keeps 2 s: the merge's record outlives sbatch's last poll
# and the script's scontrol after it, and the first purge of old jobs
# comes a minute after slurmctld starts, past the end of this test.
MinJobAge=5
# Jobs whose dependency or turn came are started at once, not up to 3 s
# later (the merge waits on the array, and the third task on a core).
SchedulerParameters=batch_sched_delay=0
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$C/slurm.conf" SQPACK_BIN="$(cd "$SQP_BIN" && pwd)"
run "munged on a private socket" munged --socket="$C/munge.sock" --key-file="$C/munge.key" \
	--pid-file="$C/munged.pid" --log-file="$C/munged.log" --seed-file="$C/munge.seed" \
	--force || finish
slurmctld -D -i > "$C/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -N "$host" > "$C/slurmd.out" 2>&1 &
pids="$pids $!"
# Poll until the node is idle (at most 30 s).
k=0 state=
while [ $k -lt 150 ]; do
	state=$(sinfo -h -o %T 2> /dev/null)
	[ "$state" = idle ] && break
	sleep 0.2
	k=$((k + 1))
done
if [ "$state" != idle ]; then
	fail "the one-node cluster is up (node: '$state')"
	tail -5 "$C/slurmctld.log" "$C/slurmd.log" "$C/slurmctld.out" "$C/slurmd.out" 2> /dev/null
	finish
fi
pass "a one-node cluster: slurmctld, slurmd -N $host, munged"

run "the one-pass image" "$DIR2IMG" -q -c gzip "$T/one.img" "$T/t" &&
run "slurm-shards.sh -n 3 -W: the array and the merge" \
	sh "$SCRIPT" -n 3 -W "$T/out.img" "$T/t" -c gzip > "$T/out.log" &&
check "the job array's merge is the one-pass image" \
	"$IMGINFO" diff -q "$T/one.img" "$T/out.img"
check "three shards, one per array task" test -f "$T/out.img.shards/shard.3.img"

# A task that fails (its shard's path is a directory; the plan, made at
# submission, is fine): the merge is cancelled, not left waiting.
mkdir -p "$T/bad.d/shard.2.img" || exit 99
sh "$SCRIPT" -n 2 -W -d "$T/bad.d" "$T/bad.img" "$T/t" > "$T/bad.log" 2> "$T/bad.err"
rc=$?
check "a failed shard cancels the merge: exit 1 (got $rc), no OUTPUT: $(cat "$T/bad.err")" \
	sh -c "test $rc = 1 && grep -q CANCELLED '$T/bad.err' && test ! -e '$T/bad.img'"
finish
