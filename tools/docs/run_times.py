"""The notebooks' measured run times (docs/notebook_run_times.json, written by
``python -m tools.benchmark --notebooks``) and how the teacher's page states them."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup

from helpers.paths import ROOT

RUN_TIMES = ROOT / "docs" / "notebook_run_times.json"
ISO_DATE = re.compile(r"^\d{4}-\d\d-\d\d$")


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class RunTimes:
    """docs/notebook_run_times.json, written by ``python -m tools.benchmark``.

    command, machine and date are those of the latest run. older_times: the notebooks that failed
    in it and kept an earlier run's time, with that time's date ("YYYY-MM-DD").
    """

    command: str
    machine: str
    date: str
    seconds: dict[str, float] = field(default_factory=dict)
    older_times: dict[str, str] = field(default_factory=dict)


def load_run_times(path: Path) -> RunTimes | None:
    """The measured run times, or None when the file does not exist; raises if it is malformed."""
    if not path.exists():
        return None
    name = _relative(path)
    expected = (
        'expected {"command": str, "machine": str, "date": str, '
        '"seconds": {"00_overview": 5.2, ...}}'
    )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{name}: not JSON ({error}); {expected}") from error
    if not isinstance(data, dict):
        raise ValueError(f"{name}: {expected}, got {type(data).__name__}")
    missing = [key for key in ("command", "machine", "date", "seconds") if key not in data]
    if missing:
        raise ValueError(f"{name}: {expected}, missing {missing}")
    seconds = data["seconds"]
    if not isinstance(seconds, dict) or not all(
        isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
        for value in seconds.values()
    ):
        raise ValueError(
            f"{name}: 'seconds': expected {{notebook name: seconds >= 0}}, got {seconds!r}"
        )
    older_times = data.get("older_times", {})
    if not isinstance(older_times, dict) or not all(
        stem in seconds and isinstance(date, str) and ISO_DATE.match(date)
        for stem, date in older_times.items()
    ):
        raise ValueError(
            f"{name}: 'older_times': expected {{notebook name in 'seconds': 'YYYY-MM-DD'}}, "
            f"got {older_times!r}"
        )
    return RunTimes(
        str(data["command"]),
        str(data["machine"]),
        str(data["date"]),
        {stem: float(value) for stem, value in seconds.items()},
        dict(older_times),
    )


def format_seconds(seconds: float, language: str = "en") -> str:
    """12.3 -> '12 s', 95 -> '1 min 35 s' (in Chinese: '12 秒', '1 分 35 秒')."""
    whole = round(seconds)
    s, m = ("秒", "分") if language == "zh" else ("s", "min")
    if whole < 60:
        return f"{max(whole, 1)} {s}"
    return f"{whole // 60} {m} {whole % 60:02d} {s}"


def format_minutes(minutes: int, language: str = "en") -> str:
    """45 -> '45 min', 110 -> '1 h 50 min' (in Chinese: '45 分钟', '1 小时 50 分钟')."""
    m, h = ("分钟", "小时") if language == "zh" else ("min", "h")
    return f"{minutes} {m}" if minutes < 60 else f"{minutes // 60} {h} {minutes % 60:02d} {m}"


NOT_MEASURED = "not measured"
NOT_MEASURED_ZH = "未测量"


def run_text(run_times: RunTimes | None, stem: str, language: str = "en") -> str:
    """A notebook's measured run time as shown on the teacher's page, or 'not measured'.

    A time older than the file's date (the notebook failed in the latest run) shows its date.
    The Chinese edition runs the same code as the English: it shows the English notebook's time.
    """
    if run_times is None or stem not in run_times.seconds:
        return NOT_MEASURED_ZH if language == "zh" else NOT_MEASURED
    text = format_seconds(run_times.seconds[stem], language)
    if stem in run_times.older_times:
        date = run_times.older_times[stem]
        text += f"（{date} 测量）" if language == "zh" else f" (measured on {date})"
    return text


def run_times_source(
    run_times: RunTimes | None, path: Path, measured: int, total: int, language: str = "en"
) -> Markup:
    """The sentence of the teacher's page that says where the run times come from."""
    source = Markup("<code>{}</code>").format(_relative(path))
    zh = language == "zh"
    if run_times is None:
        return Markup(
            "未测量：{source} 不存在，<code>python -m tools.benchmark --notebooks</code> 会写出它。"
            if zh
            else "not measured: {source} does not exist. <code>python -m tools.benchmark "
            "--notebooks</code> writes it."
        ).format(source=source)
    sentence = Markup(
        "每个英文笔记本单独运行 <code>pytest</code>（严格 nbval，全新内核）的挂钟时间，"
        "由 <code>{command}</code> 于 {date} 在 {machine} 上测得，存于 {source}；"
        "中文版运行的代码与英文版相同。时间取决于机器及其负载。"
        if zh
        else "the wall time of <code>pytest</code> (strict nbval, in a fresh kernel) on each "
        "notebook alone, measured by <code>{command}</code> on {machine}, on {date}, and stored "
        "in {source}. Timings depend on the machine and its load."
    ).format(
        command=run_times.command, machine=run_times.machine, date=run_times.date, source=source
    )
    if run_times.older_times:
        sentence += Markup(
            " 带日期的时间较旧：该笔记本在 {date} 的运行中失败，显示的是所注日期测得的时间。"
            if zh
            else " A time followed by a date is older: that notebook failed in the run of {date}, "
            "and its time is the one measured on the date shown."
        ).format(date=run_times.date)
    if measured < total:
        sentence += Markup(
            " 其中 {n} 个笔记本（共 {total} 个）没有测量时间，显示为<em>未测量</em>。"
            if zh
            else " It has no time for {n} of the {total} notebooks, which say <em>not measured</em>."
        ).format(n=total - measured, total=total)
    return sentence
