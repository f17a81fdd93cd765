"""The shapes a GEMM benchmark runs on, chosen on its command line: the sweeps below, ``--shape
M,N,K`` ones, or ``--random random[-mid]:SEED:COUNT`` products
drawn as the times tables' runs draw them (``gemm_products.drawn``).  ``mode_and_shapes`` is a
benchmark's parser (``prepare | run`` and the shape options), ``shape_options`` adds the options
to another, and ``shapes_of`` reads the shapes they ask for."""

from __future__ import annotations

import argparse

from gemm_products import drawn

HEADLINE = [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 16384, 4096), (8192, 8192, 1024)]
SWEEP = [
    (2048, 2048, 2048),
    (6144, 6144, 6144),
    (12288, 12288, 12288),  # square
    (8192, 4096, 8192),
    (4096, 16384, 4096),
    (16384, 2048, 8192),  # non-square
    (2048, 2048, 16384),
    (4096, 4096, 16384),  # K-heavy
    (256, 8192, 8192),
    (512, 16384, 4096),
    (128, 8192, 8192),  # small M
    (3000, 5000, 4000),
    (8000, 8000, 8000),
    (5000, 3000, 2040),  # not multiples of the tile
]
UNTUNED = [
    (1000, 1000, 4096),
    (512, 512, 8192),
    (256, 3000, 2048),
    (3000, 256, 4096),
    (1536, 1536, 1536),
    (2048, 768, 4096),
    (768, 2048, 1024),
    (128, 4096, 4096),
    (64, 2048, 8192),
    (1000, 3000, 1000),
    (2504, 2504, 512),
    (1024, 1024, 1024),
    (2992, 1496, 3000),
    (384, 384, 16384),
]
"""Shapes nobody tuned for (M, N up to 3000): where one configuration for every shape is slow."""
HOLDOUT = [
    (2000, 2000, 2000),
    (1200, 800, 3000),
    (640, 1920, 2048),
    (96, 3072, 4096),
    (1792, 1024, 1536),
    (4000, 504, 2000),
    (300, 5000, 1024),
    (2600, 1304, 800),
    (1096, 1096, 1096),
    (720, 720, 6144),
    (200, 200, 20000),
    (3584, 1024, 2048),
]
"""Shapes of the same range that the shape rule was not read off (``--holdout``): they show
whether the rule carries over to shapes it was not fitted to."""
ROWS_OFF = [
    (1500, 1000, 2048),
    (800, 1200, 4096),
    (2400, 600, 3072),
    (1200, 1000, 1024),
    (600, 2000, 6000),
    (3000, 504, 3000),
    (4000, 520, 1000),
    (1000, 1496, 8192),
    (2000, 1000, 2000),
    (1400, 1400, 1400),
    (904, 904, 4096),
    (3500, 696, 2048),
    (1024, 1000, 4096),
    (1600, 1000, 1024),
    (504, 3000, 2048),
    (2200, 1096, 4000),
]
"""Shapes of the same range whose B rows (and often A's) start off 128-byte boundaries
(``--rows-off``): the shape rule's pairing of tiles that share B was read off them."""
ROWS_OFF_HOLDOUT = [
    (1800, 1000, 3072),
    (700, 1400, 4096),
    (1100, 2000, 1536),
    (2600, 800, 2048),
    (360, 4000, 2048),
    (1304, 1304, 2600),
    (3200, 600, 1024),
    (960, 1800, 2048),
    (1700, 1200, 1200),
    (520, 2600, 4096),
    (2100, 904, 6144),
    (1250, 1000, 2000),
]
"""Shapes like ``ROWS_OFF`` that the pairing was checked on, not read off
(``--rows-off-holdout``)."""


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
