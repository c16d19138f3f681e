"""The package's one set of formatters (harness.common.formatting): the same figure reads the same in the HTML
report, the verdict sentences, bias-report and quality-report."""

from __future__ import annotations

import math

from harness.common.formatting import fmt_bound, fmt_fixed, fmt_num, fmt_p, fmt_pct, fmt_signed, mean, p_equals


def test_percentages_and_interval_ends() -> None:
    assert fmt_pct(0.2345) == "+23.4%" and fmt_pct(-0.05) == "-5.0%"
    assert fmt_pct(None) == fmt_pct(math.nan) == fmt_pct(math.inf) == "n/a"
    assert fmt_bound(math.inf) == "+∞" and fmt_bound(-math.inf) == "−∞" and fmt_bound(0.15) == "+15.0%"
    assert fmt_bound(math.nan) == "n/a"


def test_signed_fixed_and_scale_free_numbers() -> None:
    assert fmt_signed(9.2534) == "+9.25" and fmt_signed(-0.000123) == "-0.000123" and fmt_signed(16.0) == "+16"
    assert fmt_signed(math.inf) == "+∞" and fmt_signed(None) == fmt_signed(math.nan) == "n/a"
    assert fmt_fixed(0.82) == "0.820" and fmt_fixed(7.25, 1) == "7.2" and fmt_fixed(None) == "n/a"
    assert fmt_num(0.12345) == "0.123" and fmt_num(12.345) == "12.3" and fmt_num(123.4) == "123"


def test_p_values_alone_and_in_a_sentence() -> None:
    assert fmt_p(0.0004) == "<0.001" and fmt_p(0.001) == "0.001" and fmt_p(0.04567) == "0.0457"
    assert p_equals(0.0004) == "p<0.001" and p_equals(0.04567) == "p=0.0457" and p_equals(None) == "p=n/a"


def test_one_mean_skips_undefined_values() -> None:
    assert mean([1.0, 2.0, math.nan, 6.0]) == 3.0
    assert mean([]) is None and mean([math.inf]) is None
