"""The sm_100a (Blackwell) data path: tcgen05 descriptors, the TMEM layout model and the emitter."""
