"""What the AMD and NVIDIA halves of the ``sched`` dialect share: the op-descriptor attribute
(``opdesc_attr``), op-building helpers (``ops``) and the pretty-syntax builder base (``syntax``)."""
