"""The sm_100a data path: TMA loads, ``tcgen05.mma`` into TMEM, ``tcgen05.ld`` epilogue."""
