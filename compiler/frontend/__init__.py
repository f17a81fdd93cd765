"""Reading input: source files and ``--split-input-file`` chunks (``source``), parsing and
verifying a module (``load``), and ``--verify-diagnostics`` (``expected_diagnostics``)."""
