"""check_integer_form.py EXPORTER: sizes that round a fraction, as shape
arithmetic in backward graphs writes them, become integer divisions that
wirc reads (wirc_export.lines.integer_form, with sympy and a stand-in for
torch's FloorDiv). Prints one line per check; a wrong result prints FAIL."""
import sys

import sympy

sys.path.insert(0, sys.argv[1])
from wirc_export import lines  # noqa: E402  (needs sympy, not torch)

FloorDiv = sympy.Function("FloorDiv")
s0 = sympy.Symbol("s0", integer=True, positive=True)
s1 = sympy.Symbol("s1", integer=True, positive=True)
k = sympy.Symbol("k", integer=True, positive=True)


def check(what, e, expected):
    got = lines.integer_form(e, FloorDiv)
    print(f"{'ok' if str(got) == expected else 'FAIL'}: {what}: {got}"
          + ("" if str(got) == expected else f", expected {expected}"))
    return got


# A strided window's size (kernel 3, stride 2), as a backward graph has it.
window = check("window", sympy.floor(s0 / 2 - sympy.Rational(3, 2)) + 1, "FloorDiv(s0 - 3, 2) + 1")
check("ceiling", sympy.ceiling(s0 / 3), "FloorDiv(s0 + 2, 3)")
check("inside a product", s1 * sympy.floor((s0 + 1) / 4), "s1*FloorDiv(s0 + 1, 4)")
# Unchanged: no rounding, or a denominator that is not a constant.
plain = 2 * s0 + 1
print(f"{'ok' if lines.integer_form(plain, FloorDiv) is plain else 'FAIL'}: plain kept")
check("symbolic denominator", sympy.floor(s0 / k), "floor(s0/k)")

# The rewrite is exact: floor division agrees with the rounded fraction at
# every size tried, negative numerators included.
d = sympy.Symbol("d")
for n in range(-7, 40):
    for before, after in [(sympy.floor(s0 / 2 - sympy.Rational(3, 2)) + 1, window),
                          (sympy.ceiling(s0 / 3), lines.integer_form(sympy.ceiling(s0 / 3), FloorDiv))]:
        value = int(before.subs(s0, n))
        folded = after.replace(FloorDiv, lambda a, b: sympy.floor(a / b)).subs(s0, n)
        if int(folded) != value or int(folded) != eval(
                str(after).replace("FloorDiv", "fd"), {"fd": lambda a, b: a // b, "s0": n}):
            print(f"FAIL: value at s0={n}: {before} is {value}, {after} gives {folded}")
print("ok: values agree")

# A size scaled by a float, as interpolate's scale_factor gives it
# (stand-ins for torch's TruncToInt and ToFloat): a division where the float
# is a fraction with a power-of-two denominator and the size is not negative.
TruncToInt = sympy.Function("TruncToInt")
ToFloat = sympy.Function("ToFloat")
z = sympy.Symbol("z", integer=True)
check("scale 1.5", TruncToInt(1.5 * ToFloat(s0)), "FloorDiv(3*s0, 2)")
check("scale 0.25", TruncToInt(0.25 * ToFloat(s0)), "FloorDiv(s0, 4)")
check("scale 2.0", TruncToInt(2.0 * ToFloat(s0)) + 1, "2*s0 + 1")
check("scale 1.1 kept", TruncToInt(1.1 * ToFloat(s0)), "TruncToInt(1.1*ToFloat(s0))")
check("maybe negative kept", TruncToInt(1.5 * ToFloat(z)), "TruncToInt(1.5*ToFloat(z))")
# Exact while numerator * n stays below 2**53, where a double holds every
# integer (a tensor that fits in memory is far smaller).
for scale, numerator, denominator in [(1.5, 3, 2), (0.25, 1, 4), (2.75, 11, 4)]:
    for n in list(range(0, 300)) + [2**40 + 1, (2**53 - 1) // numerator]:
        if int(scale * float(n)) != (numerator * n) // denominator:
            print(f"FAIL: int({scale} * {n}) is {int(scale * float(n))}, "
                  f"({numerator}*{n})//{denominator} is {(numerator * n) // denominator}")
print("ok: scaled values agree")
