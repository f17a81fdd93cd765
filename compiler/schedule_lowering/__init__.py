"""What every lowering of an expanded AMD schedule shares, whatever the target.

The AMD backend (gfx942/gfx950) and the sm_90a lowering (``nvidia.crossvendor``) select
different instructions for the same ops, around the same control flow and arithmetic:

* ``plan``: the structure's execution plan as blocks of a ``FuncWriter`` (the K loop with every
  register loop-carried, the guarded structural ops, the runs of entries), through a selector;
* ``values``: the wave indices, wave-affine offsets, each lane's DMA origin and the global
  element of each DMA copy, and the store guard.
"""
