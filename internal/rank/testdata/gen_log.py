"""Regenerates log.txt: IDF arguments x = 1 + N/(1+df) with the correctly
rounded ln(x) (from 60-digit Decimal) and CPython's math.log(x) on this
platform (glibc). Usage: python3 gen_log.py > log.txt"""
import math
import random
from decimal import Decimal, getcontext

getcontext().prec = 60
GLIBC_MISSES = [(56, 12), (65, 60), (83, 76), (107, 98), (112, 25), (130, 121), (132, 64), (153, 133), (166, 153), (168, 38), (194, 184), (195, 182), (214, 197), (224, 51), (239, 185), (249, 230), (260, 243), (264, 129), (265, 71), (271, 224), (280, 64), (281, 261), (306, 267), (321, 296), (325, 304), (332, 307), (336, 77), (349, 224), (356, 204), (359, 75), (367, 221), (375, 202), (384, 90), (388, 369), (390, 365), (392, 90), (394, 48), (394, 130), (396, 194), (409, 343), (415, 384), (419, 172), (424, 112), (428, 395), (431, 419), (448, 103), (450, 250), (455, 426), (459, 401), (478, 371), (481, 336), (483, 427), (484, 302), (485, 381), (487, 370), (489, 258), (498, 342), (498, 461), (504, 116), (515, 513), (518, 442), (520, 487), (528, 259), (530, 143), (532, 186), (535, 494), (542, 449), (551, 247), (559, 448), (559, 543), (560, 129), (560, 340), (562, 523), (569, 279), (575, 145), (581, 538), (582, 554), (585, 548), (589, 544), (597, 460)]
rng = random.Random(7)
pairs = set()
for N in range(1, 60):
    for df in range(0, N + 1):
        pairs.add((N, df))
for _ in range(1500):
    N = rng.randrange(1, 200001)
    pairs.add((N, rng.randrange(0, N + 1)))
# Arguments where glibc's log is not correctly rounded (found by a scan).
pairs.update(GLIBC_MISSES)
print("# N df correctly-rounded-ln cpython-math.log")
for N, df in sorted(pairs):
    x = 1 + N / (1 + df)
    cr = float(Decimal(x).ln())
    print(N, df, cr.hex(), math.log(x).hex())
