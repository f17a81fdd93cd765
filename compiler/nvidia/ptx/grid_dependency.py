"""Programmatic dependent launch (PTX ISA, "griddepcontrol"; CUDA, "Programmatic Dependent Launch").

A kernel launched with ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`` may start
before the grid ahead of it in the stream has finished: its CTAs are scheduled as that grid's
CTAs exit, and set up (barriers, tensor-map prefetches, register reallocation) while the rest
of it drains, instead of after it.  ``wait_for_prior_grid`` (``griddepcontrol.wait``) then
holds each thread until every prerequisite grid has completed and its memory operations are
visible, so a thread of such a launch must execute it before its first access to global memory
(the prior grid may still be writing what it reads, or reading what it writes).

``allow_dependent_launch`` (``griddepcontrol.launch_dependents``) lets the grid launched after
this one be scheduled once every CTA of this grid has executed it or exited; a grid that never
executes it lets its dependent be scheduled as its CTAs exit.  It decides only when, never
whether the dependent may touch memory, which its own wait guards.  Where a kernel triggers
was chosen by measurement (docs/benchmarks.md, "Programmatic dependent launch").
"""

from __future__ import annotations

from warpsched.llvm.mlir_text import FuncWriter


def wait_for_prior_grid(w: FuncWriter) -> None:
    """``griddepcontrol.wait``: the prior grid has completed and its writes are visible."""
    w.stmt("nvvm.griddepcontrol wait")


def allow_dependent_launch(w: FuncWriter) -> None:
    """``griddepcontrol.launch_dependents``: this CTA no longer holds the next grid back."""
    w.stmt("nvvm.griddepcontrol launch_dependents")
