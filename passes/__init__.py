"""Python passes over the ``sched`` dialect (``warpsched.passes``)."""
