"""What every stage shares: the MLIR bindings (``ir``), diagnostics and atomic output files."""
