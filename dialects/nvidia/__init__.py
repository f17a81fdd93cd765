"""The NVIDIA pipeline ops of the ``sched`` dialect (``sched.nv_*``): IRDL, the op table, op
views, warp-role layouts, pretty syntax, printer and verifiers."""
