"""The shared LLVM half of the pipeline: MLIR text helpers, MLIR → LLVM IR, llvmlite codegen."""
