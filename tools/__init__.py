"""Command-line entry points (``warpsched.tools``): warpsched-opt and friends."""
