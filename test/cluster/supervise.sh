#!/usr/bin/env bash
# supervise.sh RESTARTS COMMAND [ARG...] runs COMMAND, and runs it again
# whenever it exits, after the kubelet's restart back-off for a container:
# at once the first time, then after 10 s, doubled at each exit up to 5
# minutes, and at once again after a run of 10 minutes. The file RESTARTS
# holds how many times it was restarted and when it was last started
# (seconds since the epoch). A file RESTARTS.reset, when there at an exit,
# resets the back-off as such a run would, and is removed. Each exit is
# logged with its time. SIGTERM stops the command, then the supervision.
set -u
restarts_file=$1
reset_file=$restarts_file.reset
shift
restarts=0
delay=0
child=
trap '[[ -n $child ]] && kill -TERM "$child" 2>/dev/null; wait; exit 0' TERM INT
while :; do
  started=$SECONDS
  started_at=$EPOCHREALTIME
  echo "$restarts $started_at" >"$restarts_file"
  "$@" &
  child=$!
  wait "$child"
  status=$?
  exited=$EPOCHREALTIME
  child=
  ran=$((SECONDS - started))
  if ((ran >= 600)) || [[ -e $reset_file ]]; then
    delay=0
    rm -f "$reset_file"
  fi
  restarts=$((restarts + 1))
  echo "$restarts $started_at" >"$restarts_file"
  echo "supervise: $1 exited with $status at $exited after ${ran}s; restart $restarts in ${delay}s" >&2
  # In the background, so that SIGTERM ends the wait at once.
  sleep "$delay" &
  wait $!
  delay=$((delay == 0 ? 10 : delay * 2 > 300 ? 300 : delay * 2))
done
