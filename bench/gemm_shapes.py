"""The shapes a GEMM benchmark runs on, chosen on its command line: the catalog's sweeps
(``gemm_catalog``), ``--shape M,N,K`` ones, or ``--random random[-mid]:SEED:COUNT`` products
drawn as the times tables' runs draw them (``gemm_products.drawn``).  ``mode_and_shapes`` is a
benchmark's parser (``prepare | run`` and the shape options), ``shape_options`` adds the options
to another, and ``shapes_of`` reads the shapes they ask for."""

from __future__ import annotations

import argparse

from gemm_catalog import HEADLINE, HOLDOUT, ROWS_OFF, ROWS_OFF_HOLDOUT, SWEEP, UNTUNED
from gemm_products import drawn


def mode_and_shapes(description: str) -> argparse.ArgumentParser:
    """The parser of a benchmark's ``prepare | run [--quick] [--shape M,N,K]...``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("mode", choices=("prepare", "run"))
    return shape_options(parser)


def shape_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` with the options that choose the shapes (``shapes_of``)."""
    parser.add_argument("--quick", action="store_true", help="only the four headline shapes")
    parser.add_argument("--untuned", action="store_true", help="only the untuned small shapes")
    parser.add_argument(
        "--holdout", action="store_true", help="shapes the shape rule was not read off"
    )
    parser.add_argument(
        "--rows-off", action="store_true", help="shapes whose B rows are off 128-byte boundaries"
    )
    parser.add_argument(
        "--rows-off-holdout",
        action="store_true",
        help="more such shapes, which the rule was not read off",
    )
    parser.add_argument("--shape", action="append", default=[], help="M,N,K instead of the list")
    parser.add_argument(
        "--random", default=None, type=_drawn, help="random[-mid]:SEED:COUNT drawn products"
    )
    return parser


def _drawn(spec: str) -> list[tuple[int, int, int]]:
    """``--random``'s products; a usage error for a spec ``drawn`` refuses."""
    try:
        return drawn(spec)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def given_shapes(texts: list[str]) -> list[tuple[int, ...]]:
    """The shapes of ``--shape M,N,K`` options."""
    return [tuple(int(x) for x in text.split(",")) for text in texts]


def shapes_of(args: argparse.Namespace) -> list[tuple[int, ...]]:
    """The shapes ``mode_and_shapes``'s options ask for."""
    if args.shape:
        return given_shapes(args.shape)
    if getattr(args, "random", None):
        return args.random
    if getattr(args, "untuned", False):
        return UNTUNED
    if getattr(args, "holdout", False):
        return HOLDOUT
    if getattr(args, "rows_off", False):
        return ROWS_OFF
    if getattr(args, "rows_off_holdout", False):
        return ROWS_OFF_HOLDOUT
    return HEADLINE if args.quick else HEADLINE + SWEEP
