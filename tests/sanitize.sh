#!/usr/bin/env bash
# Runs GPU suite cases under compute-sanitizer, one process per (tool, case), and prints one line
# each: the tool, the case, the sanitizer's error summary and the case's own verdict.
#   tests/sanitize.sh STAGE_DIR REGEX [TOOL...] (tools: memcheck racecheck synccheck; default all)
# STAGE_DIR is a folder from `cargo xtask stage`; REGEX selects cases from its `--list`.
# Environment: SANITIZE_TIMEOUT (seconds per run, default 120).
set -u
stage=$1
regex=$2
shift 2
tools=("$@")
((${#tools[@]})) || tools=(memcheck racecheck synccheck)
limit=${SANITIZE_TIMEOUT:-120}
cd "$stage" || exit 1
mapfile -t cases < <(./gpu-tests --list | grep -E "$regex")
clean=0
dirty=0
unfinished=0
for tool in "${tools[@]}"; do
    for c in "${cases[@]}"; do
        log=$(timeout -s KILL "$limit" compute-sanitizer --tool "$tool" --error-exitcode 99 \
            ./gpu-tests --ptx-dir ./ptx --one "$c" 2>&1)
        rc=$?
        # memcheck and synccheck end with "ERROR SUMMARY: N errors", racecheck with
        # "RACECHECK SUMMARY: N hazards displayed (N errors, N warnings)".
        summary=$(grep -oE '(ERROR SUMMARY: [0-9]+ errors?|RACECHECK SUMMARY: .*)' <<<"$log" | tail -1)
        verdict=$(grep -E '^(OK|ERR|SKIP) ' <<<"$log" | tail -1 | cut -c1-100)
        if ((rc == 137)); then
            unfinished=$((unfinished + 1))
            summary="did not finish in ${limit} s"
        elif [[ ($summary == "ERROR SUMMARY: 0 errors" || $summary == *"(0 errors, 0 warnings)"*) && $verdict != ERR* ]]; then
            clean=$((clean + 1))
        else
            dirty=$((dirty + 1))
            grep -E '^=========' <<<"$log" | head -12 | sed 's/^/    /'
        fi
        printf 'rc=%s %s %s | %s | %s\n' "$rc" "$tool" "$c" "${summary:-no summary}" "$verdict"
    done
done
echo "sanitize: $clean clean, $dirty with errors, $unfinished unfinished (${#tools[@]} tools x ${#cases[@]} cases)"
((dirty == 0 && unfinished == 0))
