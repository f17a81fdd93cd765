"""The ``warpsched-compile`` backend for sm_90a and sm_100a (``stages``: the pass pipeline and
the binary step), PTX and cubin code generation (``codegen``), SASS summaries (``sass``) and
``--report`` (``report``)."""
