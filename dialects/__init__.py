"""The ``sched`` dialect (``warpsched.dialects``).

Front doors, used by the tools: ``registry`` (load the dialect into a
context), ``syntax`` (parse the pretty form), ``printer`` (print it) and
``verify`` (the Python verifiers).  Each dispatches to the half of the dialect
an op belongs to: ``amd/`` (schedule ops, ``sched.build``, ``sched.kernel``) or
``nvidia/`` (``sched.nv_*`` pipeline ops), each with its IRDL and grammar
files, op views, syntax, printer and verifier.  ``common/`` holds what both
halves share: the op-descriptor attribute, op helpers, the syntax builder base
and printing helpers.
"""
