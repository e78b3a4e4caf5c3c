#!/usr/bin/env bash
# NashEval on the arena world: for each seed, simulate K agents over N contexts, fit
# the default (auto, network), the debiased, plug-in and oracle surfaces (solver
# policy), score each and the global maximal lottery of the same battles against the
# test truth. Prints one tab-separated row per (seed, method).
#
#   bench/arena_nasheval.sh [CONTEXTS] [AGENTS] [SEEDS...]
#   bench/arena_nasheval.sh 20000 16 70 71 72
# WORK=DIR keeps the simulations and models in DIR (a new directory) for later study;
# otherwise they go to a temporary directory removed at the end.
set -euo pipefail
contexts=${1:-20000}
agents=${2:-16}
shift 2 || true
seeds=("${@:-70}")
verdict=${VERDICT:-target/release/verdict}
if [ -n "${WORK:-}" ]; then
    mkdir "$WORK"
    work=$WORK
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
score() {
    "$verdict" evaluate "$1" --truth "$2" --format json 2>/dev/null |
        python3 -c "import json,sys; s=json.load(sys.stdin); print('%.4f\t%.4f' % (s['exploitability'], s['support_f1']))"
}
printf 'seed\tmethod\texploitability\tsupport_f1\tchosen (fit time)\n'
for seed in "${seeds[@]}"; do
    sim="$work/sim$seed"
    "$verdict" simulate --world arena --agents "$agents" --contexts "$contexts" \
        --test-contexts 4096 --seed "$seed" --rho 0.001 --out "$sim" 2>/dev/null
    common=(--contexts "$sim/contexts.parquet" --feedback "$sim/feedback.parquet"
        --text-col prompt --allow-unobserved --seed "$seed")
    for method in default debiased plugin oracle; do
        model="$work/$method$seed.json"
        case $method in
            default) extra=() ;;
            oracle) extra=(--variant oracle --truth "$sim" --policy solver) ;;
            *) extra=(--variant "$method" --policy solver) ;;
        esac
        chosen=$("$verdict" fit "${common[@]}" "${extra[@]}" --out "$model" --format json 2>/dev/null |
            python3 -c "import json,sys; d=json.load(sys.stdin); s=d['summary']; print(s['chosen'], s.get('chosen_regression'), '%.0f s' % d['seconds'])")
        printf '%s\t%s\t%s\t%s\n' "$seed" "$method" "$(score "$model" "$sim")" "$chosen"
    done
    "$verdict" rank "$sim/battles.parquet" --method lottery --allow-unobserved --format json > "$work/lottery$seed.json" 2>/dev/null
    printf '%s\t%s\t%s\t-\n' "$seed" "global lottery" "$(score "$work/lottery$seed.json" "$sim")"
done
