#!/usr/bin/env python3
"""Writes src/tools/builtin/calculator/__fixtures__/calculator-python.json: what real Python 3 gives for calculator inputs.

Each expression is parsed with Python's own `ast` module and evaluated by a whitelist walker with the calculator's
grammar (numbers, + - * / // % **, unary + -, pi, e, abs round min max, math.sqrt log log10 log2 sin cos tan ceil
floor), so operators and functions run with Python's real int/float semantics. The TypeScript evaluator must agree:
same `str(result)` for every value, and an error wherever Python raises.

Cases whose intermediate integers exceed 4300 digits (the TypeScript evaluator refuses those by design, Python
computes them) are skipped. Leading and trailing whitespace is stripped first, as the TypeScript evaluator allows it.

Deterministic: run `python3 scripts/calculator-fixtures.py` to regenerate; the output only changes when this script
(or the Python version's float math library) does.
"""

import ast
import json
import math
import operator
import random
import sys
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "src/tools/builtin/calculator/__fixtures__/calculator-python.json"
MAX_DIGITS = 4300
SEED = 20240611
GENERATED = 600

BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
FUNCTIONS = {
    "abs": abs, "round": round, "min": min, "max": max,
    "sqrt": math.sqrt, "log": math.log, "log10": math.log10, "log2": math.log2,
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "ceil": math.ceil, "floor": math.floor,
}
CONSTANTS = {"pi": math.pi, "e": math.e}


class TooLarge(Exception):
    """An intermediate integer beyond the digit limit: the TypeScript evaluator refuses it by design."""


def check(value):
    if isinstance(value, int) and value.bit_length() > 14_300:
        raise TooLarge()
    if isinstance(value, complex):
        raise ValueError("complex result")
    return value


def walk(node):
    if isinstance(node, ast.Expression):
        return walk(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return check(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        left = walk(node.left)
        right = walk(node.right)
        if isinstance(node.op, ast.Pow) and isinstance(left, int) and isinstance(right, int):
            if right > 0 and abs(left) > 1 and right * math.log2(abs(left)) > 20_000:
                raise TooLarge()
        return check(BINARY[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        value = walk(node.operand)
        return check(+value if isinstance(node.op, ast.UAdd) else -value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if node.func.id not in FUNCTIONS:
            raise ValueError(f"Unknown function: {node.func.id}")
        args = [walk(arg) for arg in node.args]
        return check(FUNCTIONS[node.func.id](*args))
    if isinstance(node, ast.Name) and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    raise ValueError(f"Unsupported: {type(node).__name__}")


def evaluate(expression):
    """Returns ("value", str) or ("error", exception name), or None when the case must be skipped."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
        return "value", str(walk(tree))
    except TooLarge:
        return None
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, OverflowError) as error:
        return "error", type(error).__name__


HAND_PICKED = [
    # the upstream table
    "2+3*4", "3*7", "10*5", "3 * (4 + 5)", "sqrt(144) + 3**2", "sqrt(16)", "10/4", "4/2",
    "10//3", "-7//2", "7.5//2", "10 % 3", "-7 % 3", "3 % -2", "2**10", "2**-1", "2**0.5",
    "10**20", "2**100", "0.1+0.2", "1/3", "1e16", "2.0**60", "1e15+0.5", "1e-5", "0.0001",
    "round(2.5)", "round(3.5)", "round(2.567, 2)", "ceil(2.1)", "floor(-2.1)", "abs(-3)", "abs(-3.0)",
    "max(1, 2.5)", "min(3,1,2)", "log(e)", "log(8, 2)", "log10(1000)", "log2(8)", "sin(pi)", "cos(0)",
    "tan(0)", "pi", "e", "-0.0",
    # floor division and modulo signs, ints and floats
    "7//2", "-7//-2", "7//-2", "7%3", "7%-3", "-7%-3", "0%5", "0%-5", "-8//4", "-8%4",
    "7.0//2", "-7.0//2", "7.0//-2", "-7.5//2", "7.5%2", "-7.5%2", "7.5%-2", "-7.5%-2",
    "0.0%-1", "-0.0//1", "-0.0%1", "1e308//1e-308", "5.5//0.1", "5.5%0.1", "-1%1e300", "1%-1e300",
    "1e400%2", "1e400//2", "2%1e400", "-2%1e400", "10**30//7", "-(10**30)//7", "10**30%-7",
    "1/0", "1//0", "1%0", "1.0/0", "1.0//0.0", "1.0%0.0", "0/0", "0.0/0",
    # float repr thresholds
    "1e15", "9999999999999998.0", "1e16-1", "123456789012345678.0", "1e-4", "0.00012345",
    "0.000012345", "1e22", "1e21", "1e-7", "5e-324", "1.7976931348623157e308", "2.5e-5",
    "100.0", "1e100", "0.1", "1/7", "2/3", "-1e16", "-1e-5", "1e400", "-1e400", "1e400-1e400",
    "123456789.123456789", "0.5e-4", "1_000.000_1", "1.", ".5", "5.e3", "1E3", "1e+3",
    # round ties and precision
    "round(0.5)", "round(1.5)", "round(-0.5)", "round(-1.5)", "round(-2.5)", "round(0.125, 2)",
    "round(0.375, 2)", "round(2.675, 2)", "round(1.005, 2)", "round(-0.4, 0)", "round(0.4, 0)",
    "round(25, -1)", "round(35, -1)", "round(-25, -1)", "round(15, -1)", "round(123.456, -1)",
    "round(1.5e300, -299)", "round(5e-324, 400)", "round(1e300, 400)", "round(1.23456789, 5)",
    "round(2.5, 0)", "round(3.5, 0)", "round(-3.5, 0)", "round(1e16)", "round(12345, 2)",
    "round(1.7976931348623157e308, -308)", "round(1e400)", "round(1e400-1e400)", "round(123, -5)",
    "round(5, -1)", "round(50, -2)", "round(150, -2)", "round(2.5, 1.0)", "round(2**60 + 0.5)",
    # big ints and mixed types
    "2**64", "-(2**63)", "2**1000", "10**400/10**399", "2**1100/3**600", "10**400/3", "(10**400)*1.0",
    "10**308*10.0", "2**1023*2.0", "2**1024 + 0.0", "10**300 + 1e300", "(10**20+1)/1", "12345678901234567891/3",
    "7//2.0", "7%2.0", "2**0.5*2", "3*1.0", "1+1.0", "1-1.0", "2**-2", "(-2)**-2", "(-2)**-3",
    "(-2)**3", "(-2.0)**3", "(-8)**(1/3)", "(-8.0)**0.5", "(-1)**0.5", "0**0", "0.0**0", "0**-1",
    "0.0**-1", "0**-1.5", "2.0**1024", "10.0**400", "(-2.0)**1025", "2.0**-1074", "2.0**-1080",
    "1.0000001**1e10", "1e308*10", "-1e308*10", "1e308+1e308", "(-1)**(10**100)", "1**(10**100)",
    "0**(10**100)", "(-1.0)**1e300", "1e400**0", "1e400**-1", "(-1e400)**3", "(-1e400)**2", "(1e400-1e400)**0",
    "abs(-2**1000)", "max(10**20, 1e20)", "max(1e20, 10**20)", "min(2, 2.0)", "min(2.0, 2)", "max(5)",
    "min()", "max(1, 2, 3, 2.5)", "min(-0.0, 0.0)", "min(0.0, -0.0)", "max(1e400-1e400, 1)", "max(1, 1e400-1e400)",
    # math functions
    "sqrt(2)", "sqrt(-1)", "sqrt(0.0)", "sqrt(-0.0)", "sqrt(10**200)", "sqrt(10**400)", "sqrt(1e400)",
    "log(0)", "log(-1)", "log(10**400)", "log(2**1024)", "log(10**1000, 10)", "log10(10**400)",
    "log2(2**2000)", "log2(3**700)", "log(1, 1)", "log(0, 1)", "log(8, 0.5)", "log(100, 10)", "log(1e400)",
    "log10(0.001)", "log2(0.125)", "log10(-1)", "log(2.5, 1)", "log()", "log(1, 2, 3)", "log(e**2)",
    "sin(0)", "sin(1)", "cos(1)", "tan(1)", "sin(1e22)", "cos(1e300)", "tan(pi/4)", "sin(1e400)",
    "cos(-pi)", "tan(pi/2)", "sin(10**20)", "sin(-0.0)", "ceil(-0.5)", "floor(0.5)", "ceil(1e300)",
    "floor(-1e20)", "ceil(10**30)", "floor(1e400)", "ceil(1e400-1e400)", "ceil(2.0000000000000004)",
    "floor(-2**0.5)", "abs(-0.0)", "abs()", "sqrt()", "sqrt(1, 2)", "ceil(1, 2)",
    "1.05**10", "1.1**2", "3**0.5", "100**0.5", "2**0.25", "10.0**-5", "10.0**22", "0.1**3", "7**(1/3)",
    "1.5**-1800", "0.5**1074", "0.5**1075", "2.0**-1074.5", "1.0000000000000002**2**52", "123.456**7.89",
    "log10(2)", "log10(5)", "log10(0.3)", "log10(5e-324)", "log2(10)", "log(10)", "log(5e-324)", "sin(0.5)",
    "cos(2)", "tan(1.5)", "tan(-1e300)", "sin(-1e300)", "cos(1e22)", "sin(2**-30)", "cos(2**-30)",
    # syntax and unsupported input
    "012", "00", "0_0", "0x10", "0o7", "0b1", "0XfF", "0B1_0", "1_000", "1__000", "1_", "0x", "0b2",
    "1e", "1e_3", "2j", "1+2j", "2x", "1..5", "1.2.3", ".", "", "   ", "  2+2  ", "2 + ", "(1+2",
    "1+2)", "()", "(1, 2)", "1, 2", "[1]", "{1}", "'a'", "x", "x + 1", "abs", "exec(1)", "__import__('os')",
    "math.pi", "math.sqrt(4)", "abs(1)(2)", "(abs)(-2)", "pi(2)", "2(3)", "1 < 2", "1 == 1", "1 and 2",
    "not 1", "2 ^ 3", "2 & 3", "2 | 3", "1 << 2", "8 >> 1", "~1", "import os", "x = 1", "lambda: 1",
    "True", "None", "1 if 1 else 2", "round(2.567, ndigits=2)", "max(*[1, 2])", "--1", "-+-1", "+-+-2",
    "- - - 3.0", "2**-1**2", "-2**2", "(-2)**2", "2**3**2", "(2**3)**2", "-2**-2", "2*-3", "2--3",
    "1 # comment", "(1 +\n 2)", "1 +\n 2", "1 \\\n + 2",
]


def number(rng):
    kind = rng.randrange(12)
    if kind == 0:
        return str(rng.randrange(0, 10))
    if kind == 1:
        return str(rng.randrange(10, 10**6))
    if kind == 2:
        return str(rng.randrange(10**15, 10**25))
    if kind == 3:
        return f"{rng.uniform(0, 100):.{rng.randrange(1, 6)}f}"
    if kind == 4:
        return f"{rng.uniform(1, 10):.{rng.randrange(0, 4)}f}e{rng.randrange(-30, 30)}"
    if kind == 5:
        return rng.choice(["0.5", "1.5", "2.5", "0.1", "0.25", "1e-5", "1e16", "3.0", "0.0", "1.0"])
    if kind == 6:
        return rng.choice(["0x1F", "0o17", "0b101", "1_000", "0xff_ff"])
    if kind == 7:
        return rng.choice(["pi", "e"])
    return str(rng.randrange(0, 13))


def call(rng, depth):
    name = rng.choice(sorted(FUNCTIONS))
    if name in ("min", "max"):
        count = rng.randrange(2, 4)
    elif name in ("round", "log"):
        count = rng.randrange(1, 3)
    else:
        count = 1
    args = [expression(rng, depth + 1) for _ in range(count)]
    if name == "round" and count == 2:
        args[1] = str(rng.randrange(-3, 6))
    return f"{name}({', '.join(args)})"


def expression(rng, depth=0):
    roll = rng.random()
    if depth >= 3 or roll < 0.3:
        text = number(rng)
        return f"-{text}" if rng.random() < 0.15 else text
    if roll < 0.45:
        return call(rng, depth)
    if roll < 0.55:
        return f"({expression(rng, depth + 1)})"
    op = rng.choice(["+", "-", "*", "/", "//", "%", "**", "+", "*", "-"])
    left = expression(rng, depth + 1)
    if op == "**":
        right = rng.choice(["2", "3", "0.5", "-1", "-2", "10", "0", "1.5", "(-1)", "7"])
        left = f"({left})" if not left.replace(".", "").isalnum() else left
    else:
        right = expression(rng, depth + 1)
    space = " " if rng.random() < 0.5 else ""
    return f"{left}{space}{op}{space}{right}"


def main():
    rng = random.Random(SEED)
    expressions = list(dict.fromkeys(HAND_PICKED))
    while len(expressions) < len(HAND_PICKED) + GENERATED:
        candidate = expression(rng)
        if candidate not in expressions:
            expressions.append(candidate)
    cases = []
    for text in expressions:
        outcome = evaluate(text)
        if outcome is None:
            continue
        kind, result = outcome
        cases.append({"expression": text, kind: result})
    document = {
        "description": "Python 3 results for calculator expressions; regenerate with scripts/calculator-fixtures.py.",
        "python": sys.version.split()[0],
        "cases": cases,
    }
    lines = ",\n".join("    " + json.dumps(case, ensure_ascii=False) for case in cases)
    header = json.dumps({k: v for k, v in document.items() if k != "cases"}, indent=2)[:-2]
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(f'{header},\n  "cases": [\n{lines}\n  ]\n}}\n', encoding="utf-8")


if __name__ == "__main__":
    main()
