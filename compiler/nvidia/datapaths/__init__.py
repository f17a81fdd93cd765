"""Data paths per target, behind the role lowering: ``mma_sync`` (sm_90a, plain loads and
``mma.sync``), ``wgmma`` (sm_90a, TMA and ``wgmma`` into register accumulators) and ``tcgen05``
(sm_100a, TMA and ``tcgen05.mma`` into TMEM); ``select`` picks a kernel's."""
