"""The classroom edition (`make student`, tools/student.py).

What a student gets must run: every cell of the copy that is not a stub is the original cell, so
strict nbval over notebooks/ already proves that the copy runs up to the exercises. What is left
to prove here is cheap: the stubs keep the signatures and hints, and, run in a kernel, the
exercise section of each copy gives a ✗ "fill in its body" for every check (no traceback) while
the original's gives a ✓.
"""

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat import NotebookNode

from helpers.data.dictionary import NOTEBOOK
from helpers.paths import NOTEBOOKS_DIR as NOTEBOOKS
from helpers.paths import numbered_notebooks
from tools import student
from tools.kernel_start import nbclient_kernel_manager

NUMBERED = numbered_notebooks()
UNFINISHED = "returned None: fill in its body"
CHECK_CALL = re.compile(r"^check_\w+\(", re.MULTILINE)  # a check called at the start of a line
KERNEL_TIMEOUT_SECONDS = 120


def read(path: Path) -> NotebookNode:
    return nbformat.read(path, as_version=4)


def solution_indices(notebook: NotebookNode) -> list[int]:
    return [index for index, cell in enumerate(notebook.cells) if student.is_solution(cell)]


WITH_EXERCISES = [path for path in NUMBERED if solution_indices(read(path))]
# Running notebook 15's exercises reads the optional dictionary (skipped where it is missing).
RUN_EXERCISES = [
    pytest.param(path, marks=pytest.mark.dictionary) if path.name == NOTEBOOK else path
    for path in WITH_EXERCISES
]


@pytest.fixture(scope="module")
def copy_dir(tmp_path_factory) -> Path:
    """The classroom edition of the series, written once for this module's tests."""
    output = tmp_path_factory.mktemp("student")
    student.write_student_copy(output)
    return output


def test_every_numbered_notebook_but_the_overview_has_exercises():
    assert [path.name for path in NUMBERED if path not in WITH_EXERCISES] == ["00_overview.ipynb"]


def test_the_copy_holds_every_file_of_notebooks_and_a_readme(copy_dir):
    originals = sorted(p.name for p in NOTEBOOKS.iterdir() if p.is_file() and p.name[0] != ".")
    assert sorted(p.name for p in (copy_dir / "notebooks").iterdir()) == originals
    readme = (copy_dir / "README.md").read_text()
    assert f"jupyter lab --ServerApp.root_dir={(copy_dir / 'notebooks').resolve()}\n" in readme
    assert "make lab" in readme and UNFINISHED in readme
    for path in NOTEBOOKS.iterdir():
        if path.is_file() and path not in WITH_EXERCISES and path.name[0] != ".":
            assert (copy_dir / "notebooks" / path.name).read_bytes() == path.read_bytes(), path


@pytest.mark.parametrize("path", WITH_EXERCISES, ids=lambda path: path.name[:2])
def test_only_the_solutions_change_and_only_later_outputs_go(path, copy_dir):
    original, copy = read(path), read(copy_dir / "notebooks" / path.name)
    solutions = solution_indices(original)
    assert len(copy.cells) == len(original.cells)
    assert copy.metadata == original.metadata
    for index, (before, after) in enumerate(zip(original.cells, copy.cells, strict=True)):
        assert after.cell_type == before.cell_type
        if index in solutions:
            assert after.metadata.tags == [
                student.EXERCISE_TAG if tag == student.SOLUTION_TAG else tag
                for tag in before.metadata.tags
            ]
            assert before.metadata.jupyter.source_hidden is True  # the answer is hidden
            assert "source_hidden" not in after.metadata.get("jupyter", {})  # the stub is not
            continue
        assert (after.source, after.metadata) == (before.source, before.metadata), index
        if before.cell_type != "code":
            continue
        if index < solutions[0]:
            assert after.outputs == before.outputs, index
            assert after.execution_count == before.execution_count, index
        else:
            assert (after.outputs, after.execution_count) == ([], None), index


def function_of(source: str) -> ast.FunctionDef:
    """The one function a solution or stub cell defines."""
    (function,) = ast.parse(source).body
    assert isinstance(function, ast.FunctionDef)
    return function


def signature(function: ast.FunctionDef) -> str:
    """Name, decorators, parameters (annotations and defaults) and return annotation."""
    parts = [function.name, function.args, function.returns, *function.decorator_list]
    return "|".join(ast.dump(part) if isinstance(part, ast.AST) else repr(part) for part in parts)


@pytest.mark.parametrize("path", WITH_EXERCISES, ids=lambda path: path.name[:2])
def test_stubs_keep_signature_and_docstring_and_give_the_hint(path, copy_dir):
    original, copy = read(path), read(copy_dir / "notebooks" / path.name)
    for index in solution_indices(original):
        solution, stub = original.cells[index].source, copy.cells[index].source
        compile(stub, f"{path.name} cell {index}", "exec")
        before, after = function_of(solution), function_of(stub)
        assert signature(after) == signature(before)
        assert ast.get_docstring(after) == ast.get_docstring(before)
        body = after.body[1:] if ast.get_docstring(after) is not None else after.body
        assert [ast.dump(statement) for statement in body] == [
            ast.dump(ast.parse("return None").body[0])
        ]
        above = [cell for cell in original.cells[:index] if cell.cell_type == "markdown"][-1]
        hint = student.hint_of(above.source)
        assert hint, f"{path.name} cell {index}: the exercise above has no *Hint:* sentence"
        comments = " ".join(
            line.strip().removeprefix("#").strip()
            for line in stub.splitlines()
            if line.strip().startswith("#")
        )
        assert f"Hint: {hint} {student.YOUR_CODE.removeprefix('# ')}" in comments


# ----------------------------------------------------------- the exercise sections, run in a kernel


def exercise_section(notebook: NotebookNode) -> list[NotebookNode]:
    """The code cells from the "## Exercises" heading on."""
    heading = max(
        index
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "markdown" and "## Exercises" in cell.source
    )
    return [cell for cell in notebook.cells[heading:] if cell.cell_type == "code"]


def first_code_cell(notebook: NotebookNode) -> NotebookNode:
    return next(cell for cell in notebook.cells if cell.cell_type == "code")


def verdict_problems(cells: list[NotebookNode], mark: str, words: str) -> tuple[list[str], int]:
    """What is wrong with the outputs of an executed exercise section, where every check should
    print one line starting with `mark` and containing `words`, and nothing else; and how many
    checks the section calls."""
    problems, checks = [], 0
    for cell in cells:
        calls = len(CHECK_CALL.findall(cell.source))
        checks += calls
        stdout = ""
        for output in cell.outputs:
            if output.output_type == "error":
                problems.append(f"{output.ename}: {output.evalue} in\n{cell.source}")
            elif output.output_type == "stream" and output.name == "stderr":
                problems.append(f"stderr {output.text!r} in\n{cell.source}")
            elif output.output_type == "stream":
                stdout += output.text
            else:  # a check's cell shows its verdict only, not a returned value
                problems.append(f"{output.output_type} {output.get('data')} in\n{cell.source}")
        verdicts = [line for line in stdout.splitlines() if line[:2] in ("✓ ", "✗ ")]
        if len(verdicts) != calls:
            problems.append(f"{calls} checks printed {stdout!r} in\n{cell.source}")
        problems += [
            f"expected {mark!r} and {words!r} in {line!r}"
            for line in verdicts
            if not (line.startswith(mark) and words in line)
        ]
    return problems, checks


# Deletes every name the user's cells defined, as a fresh kernel would not have them; unlike
# `%reset -f` it leaves out a garbage collection that costs 0.2-0.4 s with torch loaded.
FORGET_EVERYTHING = """\
def _forget(namespace=get_ipython().user_ns, keep=get_ipython().user_ns_hidden):
    for name in [name for name in namespace if name not in keep]:
        del namespace[name]


_forget()"""


@pytest.fixture(scope="module")
def kernel() -> Iterator[NotebookClient]:
    """One kernel (the .venv's, cwd notebooks/) for the exercise sections of every notebook.

    A fresh kernel per notebook would cost its start and the imports of the setup cell each time
    (about 4 s of CPU, or 0.5 s where kernels are forked); instead each run starts by emptying the
    namespace, so that a name that the exercises use and only an earlier cell defines still fails
    with a NameError.
    """
    client = NotebookClient(
        nbformat.v4.new_notebook(),
        km=nbclient_kernel_manager(),  # the kernel nbval runs notebooks in
        timeout=KERNEL_TIMEOUT_SECONDS,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
        allow_errors=True,
        shutdown_kernel="immediate",  # nothing to save; a graceful shutdown waits seconds
    )
    with client.setup_kernel():
        yield client


def run_in(kernel: NotebookClient, sources: list[str]) -> list[NotebookNode]:
    """Run sources as cells in an emptied namespace of kernel; return the cells, run."""
    kernel.nb.cells = [
        nbformat.v4.new_code_cell(source) for source in [FORGET_EVERYTHING, *sources]
    ]
    for index, cell in enumerate(kernel.nb.cells):
        kernel.execute_cell(cell, index)
    assert kernel.nb.cells[0].outputs == []
    return kernel.nb.cells[1:]


def test_each_run_starts_from_an_empty_namespace(kernel):
    run_in(kernel, ["import math\nleft_over = math.pi"])
    (cell,) = run_in(kernel, ["left_over"])
    assert [(o.output_type, o.get("ename")) for o in cell.outputs] == [("error", "NameError")]
    (cell,) = run_in(kernel, ["math"])
    assert [(o.output_type, o.get("ename")) for o in cell.outputs] == [("error", "NameError")]


@pytest.mark.parametrize("path", RUN_EXERCISES, ids=lambda path: path.name[:2])
def test_exercises_run_to_a_cross_in_the_copy_and_a_tick_in_the_original(path, copy_dir, kernel):
    original, copy = read(path), read(copy_dir / "notebooks" / path.name)
    counts = []
    # The student's copy first, so that nothing of the solutions can help it.
    for notebook, mark, words in [(copy, "✗ ", UNFINISHED), (original, "✓ ", "")]:
        cells = [first_code_cell(notebook), *exercise_section(notebook)]
        setup, *section = run_in(kernel, [cell.source for cell in cells])
        assert [o for o in setup.outputs if o.output_type == "error"] == []
        problems, checks = verdict_problems(section, mark, words)
        assert problems == [], "\n\n".join(problems)
        counts.append(checks)
    assert counts == [len(solution_indices(original))] * 2


# ------------------------------------------------------------ the stub builder on small notebooks


def exercise_notebook(*cells: tuple[str, str]) -> NotebookNode:
    """A notebook of (kind, source) pairs, kind "markdown", "code" or "solution" (a code cell
    tagged `keep` and `solution`); every code cell has an output and an execution count."""
    notebook = nbformat.v4.new_notebook()
    for count, (kind, source) in enumerate(cells, start=1):
        if kind == "markdown":
            notebook.cells.append(nbformat.v4.new_markdown_cell(source))
            continue
        cell = nbformat.v4.new_code_cell(source, execution_count=count)
        cell.outputs = [nbformat.v4.new_output("stream", text=f"output {count}\n")]
        if kind == "solution":
            cell.metadata["tags"] = ["keep", student.SOLUTION_TAG]
        notebook.cells.append(cell)
    return notebook


def test_stub_replaces_the_body_keeps_other_tags_and_clears_later_outputs():
    notebook = exercise_notebook(
        ("code", "import math"),
        ("markdown", "**1 · Area.** Write `area(r)`.\n\n*Hint:* use\n`math.pi`.\n\nThen run it."),
        ("solution", 'def area(r: float) -> float:\n    """pi r^2."""\n    return math.pi * r**2'),
        ("code", "check_area(area)"),
    )
    copy = student.student_notebook(notebook, "toy.ipynb")
    assert copy.cells[2].source == (
        'def area(r: float) -> float:\n    """pi r^2."""\n'
        "    # Hint: use `math.pi`.\n    # Your code here.\n    return None"
    )
    assert copy.cells[2].metadata.tags == ["keep", student.EXERCISE_TAG]
    assert copy.cells[0].outputs == notebook.cells[0].outputs  # before the first stub
    assert copy.cells[0].execution_count == 1
    assert [(c.outputs, c.execution_count) for c in copy.cells[2:]] == [([], None)] * 2
    assert notebook.cells[2].source.endswith("return math.pi * r**2")  # the original is untouched
    namespace: dict = {}
    exec(copy.cells[2].source, namespace)
    assert namespace["area"](2.0) is None


def test_without_a_hint_the_stub_points_to_the_exercise():
    notebook = exercise_notebook(
        ("markdown", "**1 · Twice.** Write `twice(x)`."),
        ("solution", "def twice(x):\n    return 2 * x"),
    )
    stub = student.student_notebook(notebook).cells[1].source
    assert stub == (
        "def twice(x):\n    # Hint: see the exercise above.\n    # Your code here.\n    return None"
    )
    assert student.hint_of("no hint here") is None


def test_a_chinese_stub_gives_the_chinese_hint_in_chinese():
    notebook = exercise_notebook(
        ("markdown", "**1 · 面积。** 写出 `area(r)`。\n\n*提示：* 用 `math.pi`。"),
        ("solution", "def area(r):\n    return 3.14 * r * r"),
        ("markdown", "**2 · 两倍。** 写出 `twice(x)`。"),
        ("solution", "def twice(x):\n    return 2 * x"),
    )
    copy = student.student_notebook(notebook, "toy.ipynb", language="zh")
    assert copy.cells[1].source == (
        "def area(r):\n    # 提示：用 `math.pi`。\n    # 在这里写你的代码。\n    return None"
    )
    assert copy.cells[3].source == (
        "def twice(x):\n    # 提示：见上面的练习。\n    # 在这里写你的代码。\n    return None"
    )


def test_a_language_without_an_edition_is_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="language: expected one of en, zh, got 'fr'"):
        student.write_student_copy(tmp_path / "copy", language="fr")


def test_the_hint_is_the_last_hint_paragraph_on_one_line():
    markdown = "*Hint:* an old one.\n\n**2.** Write `f`.\n*Hint:* the\n  new one.\n\nNot this."
    assert student.hint_of(markdown) == "the new one."


def test_decorators_and_a_multi_line_signature_are_kept_exactly():
    source = (
        "# a comment above\n"
        "@functools.lru_cache(maxsize=None)\n"
        "@staticmethod\n"
        "def pairs(\n"
        "    items: list[tuple[int, str]],\n"
        "    key=lambda item: item[0],  # sort key\n"
        "    *,\n"
        '    sep: str = ":",\n'
        ") -> dict[int, str]:\n"
        '    """Doc line one.\n\n    Doc line two: with a colon."""\n'
        "    if True:\n"
        "        return {}\n"
        "    return {}"
    )
    stub = student.stub_source(source, "sort, then `dict(...)`.")
    header = source[: source.index('    """')]
    assert stub.startswith(header + '    """Doc line one.\n\n    Doc line two: with a colon."""\n')
    assert stub.endswith(
        "    # Hint: sort, then `dict(...)`.\n    # Your code here.\n    return None"
    )
    assert signature(function_of(stub)) == signature(function_of(source))


def test_a_long_hint_is_wrapped_without_breaking_code_or_math():
    hint = "call " + " ".join(f"`f(a, b, {n})` and $x_{n} + y$" for n in range(12))
    stub = student.stub_source("def f():\n    pass", hint)
    comments = [line for line in stub.splitlines() if line.lstrip().startswith("#")]
    assert len(comments) > 3
    assert all(len(line) <= student.LINE_LENGTH for line in comments)
    for line in comments:
        assert line.count("`") % 2 == 0 and line.count("$") % 2 == 0, line
    assert " ".join(line.strip()[2:] for line in comments[:-1]) == f"Hint: {hint}"


def test_a_one_line_def_and_an_async_def_get_an_indented_body():
    stub = student.stub_source('def f(x): "Doc."; return x', None)
    assert stub.splitlines()[:2] == ["def f(x):", '    "Doc."']
    assert student.stub_source("async def g():\n    return 1", None).startswith("async def g():\n")


@pytest.mark.parametrize(
    ("source", "found"),
    [
        (
            "def f():\n    return 1\n\ndef g():\n    return 2",
            "FunctionDef 'f' (line 1), FunctionDef 'g'",
        ),
        ("x = 1\ndef f():\n    return x", "Assign (line 1)"),
        ("class A:\n    pass", "ClassDef 'A'"),
        ("", "got nothing"),
        ("def f(:\n    pass", "does not parse"),
    ],
)
def test_a_solution_cell_that_is_not_one_def_is_refused_by_name(source, found):
    notebook = exercise_notebook(("markdown", "*Hint:* h."), ("solution", source))
    with pytest.raises(ValueError, match=r"^toy\.ipynb, cell 1: ") as error:
        student.student_notebook(notebook, "toy.ipynb")
    assert found in str(error.value)


def test_a_notebook_without_solution_cells_is_unchanged():
    notebook = exercise_notebook(("markdown", "# Title"), ("code", "print(1)"))
    assert student.student_notebook(notebook) == notebook


def write(folder: Path, name: str, notebook: NotebookNode) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, folder / name)
    return folder / name


def test_write_student_copy_replaces_an_old_copy_and_copies_other_files(tmp_path):
    source = tmp_path / "series"
    with_exercise = exercise_notebook(
        ("markdown", "*Hint:* h."), ("solution", "def f():\n    return 1")
    )
    write(source, "01_one.ipynb", with_exercise)
    write(source, "00_plain.ipynb", exercise_notebook(("code", "print(0)")))
    write(source, "glossary.ipynb", exercise_notebook(("markdown", "x")))
    (source / "figure.png").write_bytes(b"\x89PNG not really")
    (source / ".ipynb_checkpoints").mkdir()
    student.write_student_copy(tmp_path / "out", source)  # an earlier copy, with a stale file
    stale = tmp_path / "out" / "notebooks" / "99_removed.ipynb"
    stale.write_text("{}")
    written = student.write_student_copy(tmp_path / "out", source)
    copy = tmp_path / "out" / "notebooks"
    assert sorted(path.name for path in written) == [
        "00_plain.ipynb",
        "01_one.ipynb",
        "glossary.ipynb",
    ]
    assert sorted(path.name for path in copy.iterdir()) == [
        "00_plain.ipynb",
        "01_one.ipynb",
        "figure.png",
        "glossary.ipynb",
    ]
    for name in ["00_plain.ipynb", "glossary.ipynb", "figure.png"]:
        assert (copy / name).read_bytes() == (source / name).read_bytes()
    assert read(copy / "01_one.ipynb").cells[1].metadata.tags == ["keep", student.EXERCISE_TAG]
    assert read(source / "01_one.ipynb") == with_exercise
    readme = (tmp_path / "out" / "README.md").read_text()
    assert readme == student.README.replace("student/notebooks", str(copy.resolve()))


def test_a_bad_solution_cell_leaves_the_old_copy_alone(tmp_path):
    source = tmp_path / "series"
    write(source, "01_one.ipynb", exercise_notebook(("solution", "def f():\n    return 1")))
    student.write_student_copy(tmp_path / "out", source)
    old = tmp_path / "out" / "notebooks" / "01_one.ipynb"
    old.write_text("my answers")
    write(source, "01_one.ipynb", exercise_notebook(("solution", "x = 1\ndef f():\n    return x")))
    with pytest.raises(ValueError, match="01_one.ipynb, cell 0"):
        student.write_student_copy(tmp_path / "out", source)
    assert old.read_text() == "my answers"


@pytest.mark.parametrize("output", [".", "notebooks", "notebooks/deeper"])
def test_the_copy_is_never_written_over_the_series(tmp_path, output):
    source = tmp_path / "notebooks"
    write(source, "01_one.ipynb", exercise_notebook(("code", "print(1)")))
    before = sorted(path.name for path in source.iterdir())
    with pytest.raises(ValueError, match="^output: expected a folder whose notebooks/ is outside"):
        student.write_student_copy(tmp_path / output, source)
    assert sorted(path.name for path in source.iterdir()) == before


def test_main_writes_the_folder_it_is_given_and_says_what_it_wrote(tmp_path, monkeypatch, capsys):
    source = tmp_path / "series"
    write(source, "01_one.ipynb", exercise_notebook(("solution", "def f():\n    return 1")))
    write(source, "02_two.ipynb", exercise_notebook(("solution", "def g():\n    return 2")))
    monkeypatch.setattr(student, "NOTEBOOKS", source)
    assert student.main(["--output", str(tmp_path / "class")]) == 0
    folder = tmp_path / "class" / "notebooks"
    assert capsys.readouterr().out == f"wrote 2 notebooks with 2 exercise stubs to {folder}\n"
    assert sorted(path.name for path in folder.iterdir()) == ["01_one.ipynb", "02_two.ipynb"]


def test_main_refuses_to_write_over_the_series(tmp_path, monkeypatch, capsys):
    source = tmp_path / "notebooks"
    write(source, "01_one.ipynb", exercise_notebook(("solution", "def f():\n    return 1")))
    monkeypatch.setattr(student, "NOTEBOOKS", source)
    assert student.main(["--output", str(tmp_path)]) == 1
    assert "make student: output: expected a folder" in capsys.readouterr().err
    assert read(source / "01_one.ipynb").cells[0].metadata.tags == ["keep", "solution"]


def test_a_folder_that_is_not_an_earlier_copy_is_left_alone(tmp_path):
    source = tmp_path / "series"
    write(source, "01_one.ipynb", exercise_notebook(("solution", "def f():\n    return 1")))
    other = tmp_path / "other_project"
    (other / "notebooks").mkdir(parents=True)
    (other / "notebooks" / "answers.txt").write_text("mine")
    (other / "README.md").write_text("my readme")
    with pytest.raises(ValueError, match="^output: .* holds no copy written by `make student`"):
        student.write_student_copy(other, source)
    assert (other / "notebooks" / "answers.txt").read_text() == "mine"
    assert (other / "README.md").read_text() == "my readme"
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    with pytest.raises(ValueError, match="^output: expected a folder to write the copy into"):
        student.write_student_copy(a_file, source)
    empty = tmp_path / "empty"
    empty.mkdir()
    student.write_student_copy(empty, source)  # a new or empty folder is fine, and then reusable
    student.write_student_copy(empty, source)
    assert (empty / student.MARKER).is_file()
