"""PTX spellings in the llvm + nvvm dialects: control flow and barriers (``nvvm_ops``), TMA
copies (``tma``), shared-memory matrix descriptors (``wgmma_descriptors``,
``tcgen05_descriptors``) and the rewrite of nvvm ops without an LLVM intrinsic (``nvvm_to_llvm``)."""
