"""Model checkers for the protocols of warpsched kernels (``sched-verify``).

* ``amd``: runs an expanded AMD schedule the way its kernel executes it (the
  two wave groups with their stagger, end-of-prologue and balancing barriers,
  two K-loop iterations) and checks barrier balance, priority pairing, fence
  masks, DMA completion and visibility (vmcnt per wave group) and prefetch
  overwrites of LDS still being read.
* ``nvidia``: checks a ``sched.nv_kernel``'s program model (a ``sched.nv_gemm`` as the kernel
  it expands to): TMEM, ``expect_tx`` bytes, named barriers, termination and stage agreement,
  then the mbarrier protocol explored with networkx (``nvidia_model`` and
  ``nvidia_warpgroups`` unroll each role, warpgroup and CTA into ``nvidia_actor`` actions;
  ``nvidia_explore`` walks every interleaving) for 1 tile and more tiles than stages;
  ``named_barriers``: one id per purpose, one thread count per id;
* ``counterexample``: the ``Violation`` both report, with its step-by-step trace.

The checkers take library values and opaque op handles; the ``sched-verify``
pass (``warpsched.passes.sched_verify``) maps the handles back to MLIR ops.
"""
