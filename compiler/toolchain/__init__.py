"""The external tools warpsched runs (``locate``) and the toolchain self-check (``doctor``)."""
