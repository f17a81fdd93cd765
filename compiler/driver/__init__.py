"""The compile driver: a verified ``sched`` module → passes → a backend's artefact (``compile``)."""
