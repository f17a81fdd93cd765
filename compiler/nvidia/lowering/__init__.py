"""The role lowering: a program-model ``Kernel`` → one ``nvvm.kernel`` function in the llvm +
nvvm dialects (``kernel``: assembly and barrier init; ``roles``: one role's steps; ``contexts``:
the warp contexts; ``pipeline_state``: a role's (stage, phase) per pipeline end).  The data
moves through the target's data path (``warpsched.nvidia.datapaths``)."""
