#!/usr/bin/env bash
# The nightly fuzzing campaign: a time-boxed campaign over the default and the
# uniform profile, every new failure signature reduced into corpus/, and the
# reports kept next to the journal.
#
#   ci/nightly.sh [SECONDS_PER_PROFILE] [OUTDIR]
#
# Environment: VECZ_NIGHTLY_JOBS (default: all cores), VECZ_NIGHTLY_SEED
# (default: derived from the date, so every night explores new seeds and a
# night is reproducible), VECZ_FUZZ_SCHEDULER (a Dask scheduler address).
# Exit 1 if a failure was found (its reduced case is in corpus/ for review).
set -euo pipefail

SECONDS_PER_PROFILE="${1:-1800}"
OUT="${2:-nightly-$(date +%Y%m%d)}"
JOBS="${VECZ_NIGHTLY_JOBS:-0}"
SEED="${VECZ_NIGHTLY_SEED:-$(( $(date +%Y%m%d) * 1000 ))}"
mkdir -p "$OUT"

extra=()
if [[ -n "${VECZ_FUZZ_SCHEDULER:-}" ]]; then
  extra+=(--scheduler "$VECZ_FUZZ_SCHEDULER")
fi

status=0
for profile in default uniform; do
  echo "== vecz-fuzz: profile $profile, ${SECONDS_PER_PROFILE}s, first seed $SEED" >&2
  # --resume: a nightly that was killed continues where it stopped when re-run.
  vecz-fuzz run --profile "$profile" --seed "$SEED" --time "$SECONDS_PER_PROFILE" \
    --jobs "$JOBS" --journal "$OUT/$profile.jsonl" --resume \
    --corpus corpus --reduce-time 300 --json "${extra[@]}" \
    > "$OUT/$profile.json" || rc=$?
  rc="${rc:-0}"
  if [[ "$rc" -eq 1 ]]; then status=1; elif [[ "$rc" -ne 0 ]]; then exit "$rc"; fi
  unset rc
  python - "$OUT/$profile.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{r['seeds']} kernels, {r['configurations']} configurations, "
      f"{r['throughput']:.2f}/s; statuses {r['summary']}")
for f in r["failures"]:
    print(f"  {f['count']}x {f['signature']} (seed {f['seed']})")
for x in r.get("reduced", []):
    print(f"  reduced {x['signature']}: {x.get('before')} -> {x.get('after')} {x.get('path') or x.get('error')}")
PY
done
git status --short corpus/ || true
exit "$status"
