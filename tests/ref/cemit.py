#!/usr/bin/python3
# cemit.py: writing reference values as C arrays, for the scripts beside it
# (rng_refs.py, softmax_refs.py). Imported, not run: as a script it does
# nothing. Floats print with %.9g and doubles with %.17g (both round-trip
# exactly); NaN and the infinities as C's NAN and INFINITY.
import math

import numpy as np


def c_number(v, suffix):
    """v as a C literal; suffix "f" for float, "" for double."""
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    s = ("%.9g" if suffix == "f" else "%.17g") % v
    if not any(ch in s for ch in ".e"):
        s += ".0"
    return s + suffix


def emit(lines, ctype, name, values, comment):
    """Appends one C array (values: any flat iterable) to lines."""
    values = list(values)
    if ctype == "float":
        vals = [c_number(float(np.float32(v)), "f") for v in values]
    elif ctype == "double":
        vals = [c_number(float(v), "") for v in values]
    elif ctype == "int64_t":
        vals = ["INT64_C(%d)" % int(v) for v in values]
    else:  # uint8_t, uint32_t
        vals = ["%du" % int(v) for v in values]
    lines.append("/* %s */" % comment)
    lines.append("static const %s %s[%d] = {" % (ctype, name, len(vals)))
    for i in range(0, len(vals), 4):
        lines.append("\t" + ", ".join(vals[i:i + 4]) + ",")
    lines.append("};")
    lines.append("")
