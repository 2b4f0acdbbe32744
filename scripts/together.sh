#!/usr/bin/env bash
# together.sh NAME CMD [NAME CMD]...: runs the shell commands CMD at the
# same time, each line of each one's output prefixed with "[NAME] " as it
# comes, then prints each one's wall time and exit status and fails when
# any failed (after all have ended, so that every failure is reported).
#
# Why: most of make test's time is ops' test binary, which runs its tests
# one after another on one core (lavapipe compiles each pipeline on the
# calling thread), and its three runs (subgroup sizes 8, 4 and 16) used to
# run one after another too, leaving CI's second core idle for most of the
# stage. Run together, they fill both cores.
set -uo pipefail
if [ $# -eq 0 ] || [ $(($# % 2)) -ne 0 ]; then
	echo "usage: together.sh NAME CMD [NAME CMD]..." >&2
	exit 2
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
names=()
pids=()
while [ $# -gt 0 ]; do
	name=$1 cmd=$2
	shift 2
	i=${#names[@]}
	names+=("$name")
	printf '== together: [%s] %s\n' "$name" "$cmd"
	(
		t0=$(date +%s)
		rc=0
		bash -c "$cmd" 2>&1 | sed -u "s/^/[$name] /" || rc=$?
		dt=$(($(date +%s) - t0))
		printf '%-20s %4d:%02d (exit %d)\n' "[$name]" $((dt / 60)) $((dt % 60)) "$rc" >"$dir/$i"
		printf '== together: [%s] took %d:%02d (exit %d)\n' "$name" $((dt / 60)) $((dt % 60)) "$rc"
		exit "$rc"
	) &
	pids+=($!)
done
rc=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || rc=1
done
printf '== together: times\n'
for i in "${!names[@]}"; do
	printf '   %s' "$(cat "$dir/$i" 2>/dev/null || echo "[${names[$i]}] no time (killed?)")"
	printf '\n'
done
exit "$rc"
