"""The AMD schedule ops of the ``sched`` dialect (``sched.block``, ``sched.entry``, programs and
schedules, ``sched.build``, ``sched.kernel``): IRDL, op views, pretty syntax, printer, verifier."""
