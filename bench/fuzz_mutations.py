"""The mutations ``fuzz_tools.py`` makes of a seed: truncate, delete, duplicate or splice spans,
swap or repeat lines, swap a token for a dialect word, rewrite numbers, inject garbage or
control bytes, nest deeply, concatenate another seed."""

from __future__ import annotations

import random
import re

WORDS = [
    *"sched.block sched.entry sched.program sched.schedule sched.explicit_block sched.build".split(),
    *"sched.kernel sched.nv_gemm sched.nv_kernel sched.nv_role module attributes flags".split(),
    *"prologue kernel epilogue trailing_barrier prefetch stagger lgkm schedule".split(),
    *"load_a load_b mma_load_a mma_load_b mma barrier wait_vm wait_lgkm set_prio".split(),
    *"st sub k vm ch vgpr_def K0 K1 K_PREV pingpong four_wave bk bm structure".split(),
    *"llvm.func llvm.return rocdl.s.barrier nvvm.barrier0 %0 : i32 -> ( ) { } [ ] < > , =".split(),
    '"sched.block"()',
    "#sched.op<",
    "-1",
    "-32",
    "0x7fffffffffffffff",
    "99999999999999999999",
    "// -----",
]
NUMBERS = [-(2**63) - 1, -3, -1, 0, 1, 16, 255, 2**31, 2**63, 10**30]


def mutate(data: bytes, pool: list[bytes], rng: random.Random, words: list[str] = WORDS) -> bytes:
    """One random mutation of ``data``: ``pool`` holds the seeds it may splice in or append,
    ``words`` the tokens it may write in."""
    n = len(data)
    i, j = sorted(rng.randrange(n + 1) for _ in range(2))
    choice = rng.randrange(12)
    if choice == 0:
        return data[:i]
    if choice == 1:
        return data[:i] + data[j:]
    if choice == 2:
        return data[:j] + data[i:j] + data[j:]
    if choice == 3:  # printable, control and (a quarter of the time) any bytes
        alphabet = rng.choice(
            [b"{}()[]<>@%#!=,.:-_ \"'0123456789", bytes(range(32)), bytes(range(256))]
        )
        junk = bytes(rng.choice(alphabet) for _ in range(rng.randrange(1, 8)))
        return data[:i] + junk + data[i:]
    if choice in (10, 11):  # swap two lines, or repeat one: a schedule reordered
        lines = data.split(b"\n")
        a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
        if choice == 10:
            lines[a], lines[b] = lines[b], lines[a]
        else:
            lines.insert(b, lines[a])
        return b"\n".join(lines)
    if choice == 4:
        tokens = re.split(rb"(\s+)", data)
        tokens[rng.randrange(len(tokens))] = rng.choice(words).encode()
        return b"".join(tokens)
    if choice == 5:
        return re.sub(
            rb"\d+",
            lambda m: str(rng.choice(NUMBERS)).encode() if rng.random() < 0.3 else m.group(),
            data,
        )
    if choice == 6:
        depth = rng.choice([50, 300, 3000])
        return data[:i] + b"module {" * depth + b"}" * depth + data[i:]
    if choice == 7:
        return data + b"\n" + rng.choice(pool)
    if choice == 8:
        other = rng.choice(pool)
        k = rng.randrange(len(other) + 1)
        return data[:i] + other[k : k + rng.randrange(1, 400)] + data[j:]
    return data[:i] + rng.choice(words).encode() + b" " + data[i:]
