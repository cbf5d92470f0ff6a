"""The classroom edition: a copy of the series with every exercise solution replaced by a stub.

python -m tools.student                  # writes student/notebooks/ and student/README.md
python -m tools.student --output DIR     # writes DIR/notebooks/ and DIR/README.md
python -m tools.student --language zh    # the Chinese edition (notebooks/zh/), README in Chinese

In a numbered notebook, each code cell tagged ``solution`` holds exactly one function, the filled-in
answer to the exercise above it. In the copy that cell keeps its decorators, signature and
docstring; its body becomes the hint of the exercise (the "*Hint:*" paragraph of the markdown cell
above) as a comment, ``# Your code here.`` and ``return None``, and it is tagged ``exercise``. The
check cell below it then prints "✗ … returned None: fill in its body". Code cells from the first
stub on lose their stored outputs (their ✓ lines would mislead); every other cell, and every other
file of ``notebooks/``, is copied as it is.
"""

from __future__ import annotations

import argparse
import ast
import copy
import io
import re
import shutil
import sys
import textwrap
import tokenize
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from helpers.paths import NOTEBOOKS_DIR as NOTEBOOKS
from helpers.paths import ROOT, is_lesson
from tools.notebook_format import SOLUTION_TAG, is_solution

# Left in every copy's folder: only a folder holding it (or a new or empty one) is written into.
MARKER = ".transformer-student-copy"
DEFAULT_OUTPUT = ROOT / "student"
EXERCISE_TAG = "exercise"
NO_HINT = "see the exercise above."
YOUR_CODE = "# Your code here."
LINE_LENGTH = 100  # ruff's, so a stub reads like the rest of the code
SPAN = re.compile(r"`[^`]*`|\$[^$]*\$")  # inline code and inline math: kept on one line
NO_BREAK = "\0"  # stands for a space inside a span while the hint is wrapped
HINT = re.compile(r"\*(?:Hint:|提示：)\*\s*(?P<text>.*?)(?:\n\s*\n|\Z)", re.DOTALL)
# What a stub says, in the language of its notebook.
STUB_WORDS = {
    "en": {"hint": "Hint: ", "no_hint": NO_HINT, "your_code": YOUR_CODE},
    "zh": {"hint": "提示：", "no_hint": "见上面的练习。", "your_code": "# 在这里写你的代码。"},
}

README_ZH = """\
# 课堂版

这个文件夹由 `make student ARGS="--language zh"` 写出：它是中文版笔记本的副本，其中每道练习的答案都换成了
空白函数（签名和文档字符串不变，附一条提示，函数体为 `return None`）。其余内容与原系列相同，
每个笔记本第一道练习之前的输出也都保留。

请在仓库文件夹中，用项目的环境打开它：

```bash
.venv/bin/jupyter lab --ServerApp.root_dir=student/notebooks
```

（如果你以 root 身份工作，例如在容器中，请加上 `--allow-root`。）`make lab` 打开的是原系列，含答案。

填好一个空白函数，运行它所在的单元，再运行下面的检查单元：检查会打印一行结果，函数正确时为 `✓ …`，
否则为 `✗ …` 并说明哪里不对（在你动手写之前，它会提示函数返回了 None，需要补全函数体）。
做练习之前请先运行笔记本的第一个代码单元（导入和 `setup_notebook(language="zh")`）；
练习不需要课程中的其他内容。

这个文件夹不受 git 跟踪，`make student` 每次都会删除并重写其中的 `notebooks/`：
如果想保留答案，请另存到别处。
"""

README = """\
# Classroom edition

`make student` wrote this folder: a copy of the notebooks in which every exercise's solution
is replaced by a stub, a function with the same signature and docstring, a hint and
`return None`. Everything else is the series as it is, outputs included, up to the first
exercise of each notebook.

Open it with the project's environment, from the repository's folder:

```bash
.venv/bin/jupyter lab --ServerApp.root_dir=student/notebooks
```

(add `--allow-root` if you work as root, in a container). `make lab` opens the original series,
solutions included.

Fill in a stub, run its cell, then run the check cell below it: the check prints one line,
`✓ …` when your function is right, or `✗ …` saying what is wrong (until you have written it:
"your function returned None: fill in its body"). Run the notebook's first cell (the imports and
`setup_notebook()`) before the exercises; the exercises need nothing else from the lesson.

This folder is not tracked by git, and `make student` deletes and rewrites `notebooks/` here:
save your answers elsewhere if you want to keep them.
"""


def _tags(cell: NotebookNode) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def hint_of(markdown: str) -> str | None:
    """The text of the last "*Hint:*" paragraph of a markdown cell, on one line; None if none."""
    matches = list(HINT.finditer(markdown))
    if not matches:
        return None
    text = " ".join(matches[-1].group("text").split())
    return text or None


def _header_end(source: str, function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The offset just after the colon that ends the `def` line(s) of function in source."""
    line_starts = [0]
    for line in source.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    depth, seen_def = 0, False
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        offset = line_starts[token.start[0] - 1] + token.start[1]
        if offset < line_starts[function.lineno - 1] + function.col_offset:
            continue  # decorators: their parentheses and colons are not the header's
        if token.type == tokenize.NAME and token.string == "def":
            seen_def = True
        elif seen_def and token.type == tokenize.OP:
            if token.string in "([{":
                depth += 1
            elif token.string in ")]}":
                depth -= 1
            elif token.string == ":" and depth == 0:
                return offset + 1
    raise ValueError("could not find the end of the def line")  # unreachable for parsed code


def stub_source(
    source: str, hint: str | None, where: str = "solution cell", language: str = "en"
) -> str:
    """The stub of a solution cell's source: decorators, signature and docstring kept, then the
    hint as a comment, `# Your code here.` and `return None`.

    Raises ValueError, naming `where`, unless source is exactly one top-level function.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise ValueError(
            f"{where}: expected one def, got code that does not parse ({error})"
        ) from error
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        found = ", ".join(_describe(node) for node in tree.body) or "nothing"
        raise ValueError(
            f"{where}: a solution cell must hold exactly one top-level def, got {found}"
        )
    function = tree.body[0]
    end = _header_end(source, function)  # comments above the def and its decorators stay too
    header_last_line = source[:end].count("\n") + 1
    indent = " " * (function.col_offset + 4)
    body = []
    first = function.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        # On a line of its own the docstring keeps its indentation; after `def f():` it gets one.
        own_line = first.lineno > header_last_line
        body.append((" " * first.col_offset if own_line else indent) + _segment(source, first))
    words = STUB_WORDS[language]
    body += _comment(words["hint"] + (hint or words["no_hint"]), indent)
    body += [indent + words["your_code"], indent + "return None"]
    return source[:end] + "\n" + "\n".join(body)


def _comment(text: str, indent: str) -> list[str]:
    """text as comment lines of at most LINE_LENGTH characters, never breaking a `code` or $math$
    span (one that is longer than a line gets a line of its own)."""
    unbroken = SPAN.sub(lambda match: match.group().replace(" ", NO_BREAK), text)
    lines = textwrap.wrap(
        unbroken,
        width=LINE_LENGTH,
        initial_indent=indent + "# ",
        subsequent_indent=indent + "# ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    return [line.replace(NO_BREAK, " ") for line in lines]


def _describe(node: ast.stmt) -> str:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return f"{type(node).__name__} {node.name!r} (line {node.lineno})"
    return f"{type(node).__name__} (line {node.lineno})"


def _segment(source: str, node: ast.AST) -> str:
    segment = ast.get_source_segment(source, node)
    if segment is None:  # pragma: no cover - only for nodes without positions
        raise ValueError("the docstring has no position in the source")
    return segment


def student_notebook(
    notebook: NotebookNode, where: str = "notebook", language: str = "en"
) -> NotebookNode:
    """A copy of notebook with every solution cell replaced by its stub (tagged `exercise`) and
    the outputs of the code cells from the first stub on cleared; the rest is left as it is."""
    notebook = copy.deepcopy(notebook)
    first_stub = None
    for index, cell in enumerate(notebook.cells):
        if not is_solution(cell):
            continue
        above = [c for c in notebook.cells[:index] if c.get("cell_type") == "markdown"]
        hint = hint_of(_source(above[-1])) if above else None
        cell.source = stub_source(_source(cell), hint, f"{where}, cell {index}", language)
        cell.metadata["tags"] = [
            EXERCISE_TAG if tag == SOLUTION_TAG else tag for tag in _tags(cell)
        ]
        cell.metadata.get("jupyter", {}).pop("source_hidden", None)  # a stub is for writing in
        first_stub = index if first_stub is None else first_stub
    if first_stub is not None:
        for cell in notebook.cells[first_stub:]:
            if cell.get("cell_type") == "code":
                cell.outputs = []
                cell.execution_count = None
    return notebook


def _source(cell: NotebookNode) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def check_output(output: Path, notebooks_dir: Path) -> None:
    """Refuse an output folder the copy must not be written into (ValueError naming output).

    The copy replaces output/notebooks/ and output/README.md, so output must be new, empty or a
    copy written before (it holds the MARKER file), and its notebooks/ must not overlap the series.
    """
    output = Path(output)
    target = (output / "notebooks").resolve()
    if (
        target == notebooks_dir
        or target in notebooks_dir.parents
        or notebooks_dir in target.parents
    ):
        raise ValueError(
            f"output: expected a folder whose notebooks/ is outside {notebooks_dir}, got {output}"
        )
    if output.exists() and not output.is_dir():
        raise ValueError(f"output: expected a folder to write the copy into, got a file: {output}")
    if output.is_dir() and any(output.iterdir()) and not (output / MARKER).is_file():
        raise ValueError(
            f"output: {output} is not empty and holds no copy written by `make student` (no "
            f"{MARKER} file); give a new or empty folder, so that nothing else gets overwritten"
        )


def write_student_copy(
    output: Path, notebooks_dir: Path | None = None, language: str = "en"
) -> list[Path]:
    """Write output/notebooks/ (the classroom edition of notebooks_dir, by default the series in
    ``language``: notebooks/, or notebooks/zh/ for "zh") and output/README.md.

    An earlier copy in output is replaced. Returns the notebooks written. Raises ValueError when
    output/notebooks/ would overlap notebooks_dir, or output holds anything but an earlier copy.
    """
    if language not in STUB_WORDS:
        raise ValueError(f"language: expected one of {', '.join(STUB_WORDS)}, got {language!r}")
    default = NOTEBOOKS if language == "en" else NOTEBOOKS / language
    notebooks_dir = Path(notebooks_dir or default).resolve()
    check_output(output, notebooks_dir)
    target = (Path(output) / "notebooks").resolve()
    # Build every notebook before touching the disk: a malformed solution cell leaves no half copy.
    copies: dict[str, NotebookNode | None] = {}
    for path in sorted(notebooks_dir.iterdir()):
        if not path.is_file() or path.name.startswith("."):
            continue
        if is_lesson(path):
            notebook = nbformat.read(path, as_version=4)
            has_solutions = any(is_solution(cell) for cell in notebook.cells)
            copies[path.name] = (
                student_notebook(notebook, path.name, language) if has_solutions else None
            )
        else:
            copies[path.name] = None  # copied as it is
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    (target.parent / MARKER).write_text(
        "Written by `make student` (python -m tools.student), which replaces this "
        "folder's notebooks/ and README.md each time.\n",
        encoding="utf-8",
    )
    written = []
    for name, notebook in copies.items():
        if notebook is None:
            shutil.copyfile(notebooks_dir / name, target / name)
        else:
            nbformat.write(notebook, target / name)
        if name.endswith(".ipynb"):
            written.append(target / name)
    readme = (README_ZH if language == "zh" else README).replace(
        "student/notebooks", _shown(target)
    )  # the folder it was written to
    (target.parent / "README.md").write_text(readme, encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        help="folder to write notebooks/ and README.md into (default: student/)",
    )
    parser.add_argument(
        "--language",
        default="en",
        help="en (default) or zh: the Chinese edition, from notebooks/zh/",
    )
    arguments = parser.parse_args(argv)
    try:
        written = write_student_copy(arguments.output, language=arguments.language)
    except ValueError as error:
        print(f"make student: {error}", file=sys.stderr)
        return 1
    stubs = sum(
        EXERCISE_TAG in _tags(cell)
        for path in written
        for cell in nbformat.read(path, as_version=4).cells
    )
    folder = written[0].parent if written else arguments.output
    print(f"wrote {len(written)} notebooks with {stubs} exercise stubs to {_shown(folder)}")
    return 0


def _shown(path: Path) -> str:
    """path relative to the repository when it is inside it, as commands run from there see it."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


if __name__ == "__main__":
    sys.exit(main())
