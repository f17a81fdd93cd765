"""The ``sched`` dialect: IRDL definition, syntax, op views and verifiers (``warpsched.dialects``)."""
