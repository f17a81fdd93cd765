"""Model checkers for the protocols of warpsched kernels (``sched-verify``).

* ``amd``: runs an expanded AMD schedule the way its kernel executes it (the
  two wave groups with their stagger, end-of-prologue and balancing barriers,
  two K-loop iterations) and checks barrier balance, priority pairing, fence
  masks, DMA completion and visibility (vmcnt per wave group) and prefetch
  overwrites of LDS still being read.
* ``nvidia``: explores the mbarrier protocol of a ``sched.nv_kernel``'s program
  model with networkx (every interleaving of the roles, several stage and tile
  counts) and checks arrival counts, termination, named barriers and TMEM.
* ``counterexample``: the ``Violation`` both report, with its step-by-step trace.

The checkers take library values and opaque op handles; the ``sched-verify``
pass (``warpsched.passes.sched_verify``) maps the handles back to MLIR ops.
"""
