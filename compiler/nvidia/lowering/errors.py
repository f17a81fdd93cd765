"""``LoweringError``: a program the role lowering cannot lower (the message names the kernel or
role and the step)."""


class LoweringError(ValueError):
    """The program cannot be lowered; the message names the role and the step."""
