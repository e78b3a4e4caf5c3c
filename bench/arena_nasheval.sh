#!/usr/bin/env bash
# NashEval on the arena world: for each seed, simulate K agents over N contexts, fit
# the default (auto, network), the debiased, plug-in and oracle surfaces (solver
# policy), score each against the test truth (exploitability, support F1, the
# surface's root mean squared error against A(x)), then the baselines of the same
# battles: the global maximal lottery, one lottery per language, and the per-context
# Bradley–Terry argmax of the plug-in and debiased surfaces. Prints one tab-separated
# row per (seed, method).
#
#   bench/arena_nasheval.sh [CONTEXTS] [AGENTS] [SEEDS...]
#   bench/arena_nasheval.sh 20000 16 70 71 72
# WORK=DIR keeps the simulations and models in DIR (a new directory) for later study;
# otherwise they go to a temporary directory removed at the end.
# METHODS="default plugin ..." chooses the fits (default: default debiased plugin
# oracle); besides those four: debiased-structured and debiased-per-pair (those
# payoff regressions), oracle-structured (the true pseudo-outcomes regressed by the
# structured model), plugin-rR (the structured plug-in at cyclic rank R),
# pooled-plugin and pooled-debiased (the pooled outcome design), default-log-loss (the
# default with the rank chosen by the verdicts' log loss).
# CYCLE=C plants the arena world's cyclic preference of strength C; ROTATION=R and
# BALANCE=b give the voter groups rotated orders of the styles and an even mix
# (--group-rotation, --group-balance: cycles only from mixing transitive groups).
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
        python3 -c "import json,sys; s=json.load(sys.stdin); print('%.4f\t%.4f\t%s' % (s['exploitability'], s['support_f1'], '%.4f' % s['payoff_rmse'] if 'payoff_rmse' in s else '-'))"
}
printf 'seed\tmethod\texploitability\tsupport_f1\tpayoff_rmse\tchosen (fit time)\n'
for seed in "${seeds[@]}"; do
    sim="$work/sim$seed"
    "$verdict" simulate --world arena --agents "$agents" --contexts "$contexts" \
        --test-contexts 4096 --seed "$seed" --rho 0.001 --cycle-strength "${CYCLE:-0}" \
        --group-rotation "${ROTATION:-0}" --group-balance "${BALANCE:-0}" --out "$sim" 2>/dev/null
    common=(--contexts "$sim/contexts.parquet" --feedback "$sim/feedback.parquet"
        --text-col prompt --allow-unobserved --seed "$seed")
    for method in ${METHODS:-default debiased plugin oracle}; do
        model="$work/$method$seed.json"
        case $method in
            default) extra=() ;;
            default-log-loss) extra=(--rank-criterion log-loss) ;;
            oracle) extra=(--variant oracle --truth "$sim" --policy solver) ;;
            oracle-structured) extra=(--variant oracle --truth "$sim" --payoff-regression structured --policy solver) ;;
            debiased-structured) extra=(--variant debiased --payoff-regression structured --policy solver) ;;
            debiased-per-pair) extra=(--variant debiased --payoff-regression per-pair --policy solver) ;;
            plugin-r*) extra=(--variant plugin --surface-rank "${method#plugin-r}" --policy solver) ;;
            pooled-*) extra=(--nuisance-design pooled --variant "${method#pooled-}" --policy solver) ;;
            *) extra=(--variant "$method" --policy solver) ;;
        esac
        chosen=$("$verdict" fit "${common[@]}" "${extra[@]}" --out "$model" --format json 2>/dev/null |
            python3 -c "
import json, sys
d = json.load(sys.stdin)
s = d['summary']
r = s.get('outcome_structure') or [{}]
c = s.get('rank_choice')
choice = '' if not c else ' (exploitability chose r=%d, lowest r=%d, log loss r=%d; transitivity %s, z=%.2f)' % (
    c['chosen'], c['lowest'], c['by_log_loss'], 'rejected' if c['transitivity']['rejects'] else 'kept', c['transitivity']['statistic'])
print(s['chosen'], s.get('chosen_regression'), 'r=%s' % r[0].get('rank', '-'), '%.0f s' % d['seconds'] + choice)")
        printf '%s\t%s\t%s\t%s\n' "$seed" "$method" "$(score "$model" "$sim")" "$chosen"
    done
    surfaces=()
    for method in plugin debiased; do
        [ -f "$work/$method$seed.json" ] && surfaces+=(--model "$work/$method$seed.json")
    done
    "$verdict" bench baselines --truth "$sim" --by language "${surfaces[@]}" 2>/dev/null |
        python3 -c "
import json, sys
for line in sys.stdin:
    s = json.loads(line)
    print('%s\t%s\t%.4f\t%.4f\t-\t%d of %d games with a Condorcet winner' % ('$seed', s['method'].replace('$work/', ''),
          s['exploitability'], s['support_f1'], s['condorcet_contexts'], s['contexts']))"
done
