"""The sm_90a fast data path: TMA loads into a 128-byte-swizzled ring, ``wgmma.mma_async`` into
register accumulators, register or TMA-store epilogues, stream-K and 2x1 clusters."""
