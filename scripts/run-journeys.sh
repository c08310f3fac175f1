#!/usr/bin/env bash
# Walks the workbench's user journeys (reviewer, clinician, teacher, and the clinician again with a
# folder of DICOM files: dicom) in a real window under
# Xvfb with the real engine, and refreshes docs/screenshots/journeys/: the screenshots of every
# step, summary.md (user actions and wall time per journey) and the first two pages of the
# reviewer's PDF report (docs/WORKBENCH.md, "Journeys").
#
#   scripts/run-journeys.sh [BUILD_DIR]        (default: build; JOURNEYS=reviewer,teacher for some)
#
# The dicom journey writes its own study (200 patients × 3 images, with GDCM) and needs no demo.
#
# Needs the demo project: made when missing as scripts/make-screenshots.sh makes it
# (projects/fashion-mnist.dpmix, then a copy under BUILD_DIR/screenshots-demo with the mixture at
# several ε), plus the downstream stage for one task with short pretraining and fine-tuning so
# the reviewer sees AUC against the baselines (about 6 CPU minutes, once).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
dpmix="$build/bin/dpmix"
test="$build/bin/tests/tst_journeys"
dicom_test="$build/bin/tests/tst_dicom_journey"
for program in "$dpmix" "$test" "$dicom_test"; do
    [[ -x "$program" ]] || { echo "run-journeys: $program is missing; build it first (ninja -C $build dpmix tst_journeys tst_dicom_journey)" >&2; exit 1; }
done

demo="$build/screenshots-demo/fashion-mnist.dpmix"
fresh_copy=0
[[ -f "$demo" ]] || fresh_copy=1
"$root/scripts/demo-copy.sh" "$build"
if [[ $fresh_copy == 1 ]]; then
    echo "run-journeys: adding the downstream stage (task 'warm clothing', seed 0, short training)"
    "$dpmix" run "$demo" --stages downstream --tasks "warm clothing" --seed 0 --pretrain-steps 100 \
        --finetune-steps 60 --proxy-epochs 1
fi

out="$root/docs/screenshots/journeys"
work="$build/journeys"
mkdir -p "$out" "$work"
functions=()
walk_dicom=0
IFS=',' read -ra chosen <<< "${JOURNEYS:-reviewer,clinician,teacher,dicom}"
# Only the walked journeys' screenshots are replaced (and their rows of summary.md).
for j in "${chosen[@]}"; do
    rm -f "$out/$j"-*.png
    if [[ $j == dicom ]]; then walk_dicom=1; else functions+=("$j"); fi
done
export DPMIX_DATA_DIR="$root/data" DPMIX_JOURNEY_SHOTS="$out" DPMIX_JOURNEY_WORK="$work" DPMIX_JOURNEY_DEMO="$demo"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" QT_QPA_PLATFORM=xcb
# A journey trains models (the teacher's full-pipeline sweep: minutes): past Qt Test's 5-minute default.
export QTEST_FUNCTION_TIMEOUT="${QTEST_FUNCTION_TIMEOUT:-1500000}"
status=0
: > "$work/journeys.log"
if (( ${#functions[@]} > 0 )); then
    xvfb-run -a -s "-screen 0 1600x1000x24" "$test" "${functions[@]}" 2>&1 | tee -a "$work/journeys.log"
    status=${PIPESTATUS[0]}
fi
if [[ $walk_dicom == 1 ]]; then
    xvfb-run -a -s "-screen 0 1600x1000x24" "$dicom_test" 2>&1 | tee -a "$work/journeys.log"
    dicom_status=${PIPESTATUS[0]}
    (( status != 0 )) || status=$dicom_status
fi

# The reviewer's report, pages 1 and 2 as PNG (poppler-utils' pdftoppm).
pdf="$work/reviewer-report.pdf"
walked_reviewer=0
for j in "${chosen[@]}"; do [[ $j == reviewer ]] && walked_reviewer=1; done
if [[ $walked_reviewer == 0 ]]; then
    :  # the report's pages are the reviewer's
elif [[ -f "$pdf" ]] && command -v pdftoppm >/dev/null; then
    pdftoppm -png -r 60 -f 1 -l 2 "$pdf" "$work/report-page"
    for n in 1 2; do
        page=$(ls "$work"/report-page-*"$n".png 2>/dev/null | head -1)
        [[ -n "$page" ]] && mv "$page" "$out/report-page-$n.png"
    done
    echo "run-journeys: wrote $out/report-page-1.png and -2.png from $pdf"
elif [[ -f "$pdf" ]]; then
    echo "run-journeys: pdftoppm is missing (apt-get install poppler-utils); the report is $pdf"
fi
[[ -f "$out/summary.md" ]] && cat "$out/summary.md"
echo "run-journeys: total size of $out: $(du -sh "$out" | cut -f1)"
exit "$status"
