#!/usr/bin/env bash
# A real single-node Slurm on this host, for the `cluster` tests (docs/CLUSTER.md, "Testing").
#
#   scripts/slurm-local.sh start    # install slurm-wlm + munge (apt) if missing, write a minimal
#                                   # slurm.conf, start munged, slurmctld, slurmd; wait for `idle`
#   scripts/slurm-local.sh status   # exit 0 when the local node answers and is usable
#   scripts/slurm-local.sh stop     # stop the daemons this script started (by their pid files)
#
# Start is idempotent: a running local Slurm is left as it is. No cgroups are needed
# (proctrack/linuxproc, task/none); everything runs as root; no accounting database (sacct is
# not available, `dpmix jobs status` then reads squeue and the unit files).
# The configuration is written only where this script wrote it before: an /etc/slurm/slurm.conf
# without its marker (a real cluster's) is never replaced.
set -euo pipefail

action=${1:-start}
CONF=/etc/slurm/slurm.conf
MARKER="# written by dpmix scripts/slurm-local.sh"
STATE=/var/lib/dpmix-slurm-local
LOGS=/var/log/dpmix-slurm-local
RUN=/run/dpmix-slurm-local
WAIT_S=${SLURM_LOCAL_WAIT_S:-60}

say() { echo "[slurm-local] $*"; }
die() { echo "[slurm-local] error: $*" >&2; exit 1; }

node_state() { timeout 10 sinfo -h -N -o '%T' 2>/dev/null | head -1 | tr -d '*' || true; }

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

install_packages() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null &&
     command -v sbatch >/dev/null; then
    return
  fi
  [ "$(id -u)" = 0 ] || die "slurm-wlm and munge are not installed and this is not root: run it as root (it uses apt-get)"
  say "installing slurm-wlm and munge (apt)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends slurm-wlm munge >/tmp/slurm-local-apt.log 2>&1 || {
    apt-get update >/tmp/slurm-local-apt.log 2>&1 &&
      apt-get install -y --no-install-recommends slurm-wlm munge >>/tmp/slurm-local-apt.log 2>&1
  } || { tail -20 /tmp/slurm-local-apt.log; die "apt-get could not install slurm-wlm and munge"; }
}

write_conf() {
  if [ -f "$CONF" ] && ! grep -qF "$MARKER" "$CONF"; then
    die "$CONF exists and was not written by this script (a real cluster's?): not replacing it"
  fi
  local host node
  host=$(hostname -s)
  # slurmd -C: this host's CPUs, sockets, cores and memory, as a NodeName line.
  node=$(slurmd -C | head -1)
  [ -n "$node" ] || die "slurmd -C printed nothing"
  mkdir -p "$STATE/ctld" "$STATE/d" "$LOGS" "$RUN" /etc/slurm
  local tmp="$CONF.tmp.$$"
  cat >"$tmp" <<EOF
$MARKER — a single-node test cluster; stop it with scripts/slurm-local.sh stop
ClusterName=dpmixlocal
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
MinJobAge=600
MaxArraySize=100001
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
$node State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  # cgroup.conf is read by slurmd even with the cgroup plugins off; keep it harmless.
  [ -f /etc/slurm/cgroup.conf ] || printf '%s\nCgroupPlugin=autodetect\n' "$MARKER" >/etc/slurm/cgroup.conf
  mv "$tmp" "$CONF"
}

start_munge() {
  if pgrep -x munged >/dev/null && munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then return; fi
  [ -s /etc/munge/munge.key ] || {
    say "creating a munge key"
    (command -v mungekey >/dev/null && mungekey --create --force) ||
      dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null
    chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  }
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge
  say "starting munged"
  runuser -u munge -- /usr/sbin/munged || die "munged did not start (see /var/log/munge/munged.log)"
  for _ in $(seq 20); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return; sleep 0.25; done
  die "munge does not answer"
}

do_start() {
  # Only ask the controller when one of ours runs (sinfo waits for an absent one).
  if pid_alive "$RUN/slurmctld.pid" && pid_alive "$RUN/slurmd.pid"; then
    case "$(node_state)" in
      idle|mixed|allocated) say "already running ($(sinfo -h -N -o '%N %T %c CPUs' | head -1))"; return ;;
    esac
  fi
  [ "$(id -u)" = 0 ] || die "starting the local Slurm needs root"
  install_packages
  write_conf
  start_munge
  pid_alive "$RUN/slurmctld.pid" || { say "starting slurmctld"; slurmctld || die "slurmctld did not start (see $LOGS/slurmctld.log)"; }
  pid_alive "$RUN/slurmd.pid" || { say "starting slurmd"; slurmd || die "slurmd did not start (see $LOGS/slurmd.log)"; }
  local deadline=$(( $(date +%s) + WAIT_S )) state=""
  while [ "$(date +%s)" -lt "$deadline" ]; do
    state=$(node_state)
    case "$state" in
      idle|mixed|allocated) say "node $(hostname -s) is $state ($(sinfo -h -N -o '%c' | head -1) CPUs)"; return ;;
      down|drained|draining|drain|fail) scontrol update nodename="$(hostname -s)" state=resume >/dev/null 2>&1 || true ;;
    esac
    sleep 1
  done
  tail -5 "$LOGS/slurmctld.log" "$LOGS/slurmd.log" 2>/dev/null || true
  die "the node did not become idle within ${WAIT_S} s (state: '${state:-no answer}')"
}

do_stop() {
  local stopped=0
  for d in slurmd slurmctld; do
    if pid_alive "$RUN/$d.pid"; then
      local pid; pid=$(cat "$RUN/$d.pid")
      say "stopping $d (pid $pid)"
      kill "$pid"
      for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -0 "$pid" 2>/dev/null && { say "$d did not stop: killing it"; kill -9 "$pid" || true; }
      stopped=1
    fi
  done
  local mpid=/run/munge/munged.pid
  if grep -qF "$MARKER" "$CONF" 2>/dev/null && pid_alive "$mpid"; then
    local pid; pid=$(cat "$mpid")
    say "stopping munged (pid $pid)"
    kill "$pid"
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    stopped=1
  fi
  [ "$stopped" = 1 ] || say "nothing to stop"
}

do_status() {
  local state=""
  if grep -qF "$MARKER" "$CONF" 2>/dev/null && ! pid_alive "$RUN/slurmctld.pid"; then
    echo "not running (no slurmctld of this script)"; return 1
  fi
  state=$(node_state)
  case "$state" in
    idle|mixed|allocated) echo "running: $(sinfo -h -N -o '%N %T %c CPUs' | head -1)"; return 0 ;;
    "") echo "not running (no controller answers)"; return 1 ;;
    *) echo "node state: $state"; return 1 ;;
  esac
}

case "$action" in
  start) do_start ;;
  stop) do_stop ;;
  status) do_status ;;
  restart) do_stop; do_start ;;
  *) die "usage: $0 start|stop|status|restart" ;;
esac
