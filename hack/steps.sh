#!/usr/bin/env bash
# steps.sh LOGDIR "TITLE=TARGETS"...: makes the TARGETS of each step in
# turn, with one line per step that names it and, when it ends, says how
# long it took. A step's output goes to LOGDIR/N.log and is shown (its
# end) only when the step fails, so that a first run, which compiles for
# minutes, is neither silent nor a flood of download lines. BACKGROUND, a
# command, runs meanwhile (its output in LOGDIR/background.log), as the
# module downloads of later steps overlap the compiling of earlier ones.
set -euo pipefail

logs=$1
shift
mkdir -p "$logs"

duration() {
  printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

background=
if [[ -n ${BACKGROUND:-} ]]; then
  bash -c "$BACKGROUND" >"$logs/background.log" 2>&1 &
  background=$!
fi

start=$SECONDS
i=0
for step in "$@"; do
  i=$((i + 1))
  title=${step%%=*}
  read -ra targets <<<"${step#*=}"
  log=$logs/$i.log
  printf '[%d/%d] %s ... ' "$i" "$#" "$title"
  began=$SECONDS
  if ! "${MAKE:-make}" --no-print-directory "${targets[@]}" >"$log" 2>&1; then
    echo "failed after $(duration $((SECONDS - began))); the end of $log:"
    tail -n 30 "$log"
    exit 1
  fi
  echo "$(duration $((SECONDS - began)))"
done
if [[ -n $background ]]; then
  wait "$background" || echo "(the background downloads failed: $logs/background.log; the steps downloaded what they needed)"
fi
echo "built and started in $(duration $((SECONDS - start)))"
