"""The verdicts of `python -m oracle.builtin_survey`."""

from __future__ import annotations

from oracle.builtin_survey import judge, main


def test_verdicts_from_statuses() -> None:
    assert judge([(4, "match", ""), (8, "match", "")]) == ("match", "")
    assert judge([(4, "match", ""), (8, "mismatch", "buffer 0")])[0] == "defect"
    assert judge([(4, "not-vectorized", "remark"), (8, "match", "")]) == ("refused", "W=4: remark")
    assert judge([(4, "unsupported-input", "undefined function _Z11read_imagef14ocl_image2d_ro")])[0] == \
        "unsupported builtin"
    assert judge([(4, "unsupported-input", "undefined function md5_2words")])[0] == "not judged"
    assert judge([(4, "scalar-fault", "launch")])[0] == "not judged"
    assert judge([])[0] == "not judged"


def test_bad_directory_is_a_one_line_error(tmp_path, capsys) -> None:
    assert main([str(tmp_path)]) == 2
    assert "no catalogue.json" in capsys.readouterr().err
