"""Five-fold cross-validation of ``gemm()``'s choice of kernel on a times table.

    python bench/gemm_select_cv.py [TABLE.tsv] [--shufflings N] [--fitted-on OTHER.tsv]

Every product of the table (the shipped one by default) is picked by a model
(``gemm_times_model.MeasuredTimes``) fitted without its fold, as ``gemm_select.select_kernel`` picks
(``gemm_select.pick``): the fastest predicted kernel where it beats the rule's by ``SWITCH``,
the rule's otherwise.  ``--fitted-on`` fits the models to another table of the same products
(measured on another device) and scores their picks on ``TABLE``'s times: how well one
device's table chooses for another.  For
each ``SWITCH`` of ``SWITCHES`` it prints the mean over products of the fastest measured time
over the pick's measured time, and how many picks are more than 10 % slower than the fastest.
Products where the rule's kernel was not measured (in either table) are left out.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

FOLDS = 5
SWITCHES = (1.0, 1.01, 1.02, 1.03, 1.05)
SLOW = 1.1


@dataclass(frozen=True)
class Score:
    """What the picks at one ``SWITCH`` come to: the mean of fastest/pick, the picks more than
    ``SLOW`` times the fastest, and the products scored."""

    switch: float
    mean: float
    slow: int
    products: int


def cross_validate(
    text: str, source: str, shufflings: int = 1, fitted_on: tuple[str, str] | None = None
) -> list[Score]:
    """The score of every ``SWITCHES`` value on the table ``text`` (see the module docstring),
    the models fitted to ``text`` or to the table ``fitted_on`` (its text and source), whose
    products must be ``text``'s in the same order (``ValueError`` otherwise)."""
    from warpsched.runtime.gemm_select import pick, rule_kernel
    from warpsched.runtime.gemm_times import read
    from warpsched.runtime.gemm_times_model import MeasuredTimes

    device, candidates, products, times = read(text, source)
    columns = set(candidates)
    fit_text, fit_source = fitted_on or (text, source)
    if fitted_on is not None and read(fit_text, fit_source)[2] != products:
        raise ValueError(f"{fit_source} does not hold the products of {source} in its order")
    lines = fit_text.splitlines()
    comments = [line for line in lines if line.startswith("#")]
    header, *rows = [line for line in lines if not line.startswith("#") and line.strip()]
    ratios: dict[float, list[float]] = {s: [] for s in SWITCHES}
    for shuffling in range(shufflings):
        order = list(range(len(rows)))
        random.Random(shuffling).shuffle(order)
        for fold in (set(order[i::FOLDS]) for i in range(FOLDS)):
            kept = [row for i, row in enumerate(rows) if i not in fold]
            model = MeasuredTimes("\n".join([*comments, header, *kept]) + "\n", fit_source)
            for i in sorted(fold):
                p = products[i]
                measured = {
                    c: t for c, t in zip(candidates, times[i], strict=True) if not math.isnan(t)
                }
                rule = rule_kernel(p, device.sms)
                predicted = {c: t for c, t in model.predict(p).items() if c in columns}
                if rule not in measured or rule not in predicted:
                    continue
                best = min(measured.values())
                for switch in SWITCHES:
                    chosen = pick(predicted, rule, switch)
                    ratios[switch].append(best / measured.get(chosen, measured[rule]))
    return [
        Score(s, statistics.mean(r), sum(x < 1 / SLOW for x in r), len(r))
        for s, r in ratios.items()
    ]


def main(argv: list[str]) -> int:
    from warpsched.runtime.gemm_times import TABLE

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", nargs="?", default=str(TABLE))
    parser.add_argument("--shufflings", type=int, default=1)
    parser.add_argument("--fitted-on", default="", help="fit the models to this table instead")
    args = parser.parse_args(argv)
    fitted_on = (Path(args.fitted_on).read_text(), args.fitted_on) if args.fitted_on else None
    text = Path(args.table).read_text()
    for score in cross_validate(text, args.table, args.shufflings, fitted_on):
        print(
            f"SWITCH {score.switch:.3f}: mean fastest/pick {score.mean:.4f}, "
            f"{score.slow} of {score.products} picks over {SLOW:.0%} of the fastest's time"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
