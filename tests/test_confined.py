"""harness/confined.py: no write through a link out of the project, nothing copied from outside
an imported project (issue 28 items 5, 6, 7). The end-to-end variants are in
tests/test_battery_files.py; these pin the rule itself."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.atomicfile import atomic_write
from harness.confined import LinkOutside, check_folder, check_source, make_folder, open_no_follow, resolves_inside
from harness.errors import InputError


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(project, outside): the working folder is the project."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "keep.txt").write_text("outside\n", encoding="utf-8")
    monkeypatch.chdir(project)
    return project, outside


def outside_files(outside: Path) -> list[str]:
    return sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*"))


@pytest.mark.parametrize("link", ["reports", "reports/towns", "reports/towns/r1", "reports/towns/r1/plots"])
def test_a_folder_linked_out_of_the_project_is_refused_wherever_it_is(world, link: str) -> None:
    project, outside = world
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    (project / link).symlink_to(outside)
    with pytest.raises(LinkOutside, match=f"{link} is a link to .*outside the project folder"):
        atomic_write(Path("reports/towns/r1/plots/metrics.png"), b"png")
    assert outside_files(outside) == ["keep.txt"]


def test_a_relative_link_climbing_out_is_refused_and_one_climbing_back_in_is_followed(world) -> None:
    project, outside = world
    (project / "store").mkdir()
    (project / "sub").mkdir()
    (project / "out").symlink_to("../outside")
    (project / "back").symlink_to("sub/../store")
    with pytest.raises(LinkOutside):
        atomic_write(Path("out/x.json"), "{}")
    atomic_write(Path("back/x.json"), "{}")
    assert (project / "store" / "x.json").read_text(encoding="utf-8") == "{}"
    assert outside_files(outside) == ["keep.txt"]


def test_a_chain_of_links_is_judged_by_where_it_ends(world) -> None:
    project, outside = world
    (project / "b").mkdir()
    (project / "a").symlink_to("b")
    (project / "reports").symlink_to("a")
    atomic_write(Path("reports/x.txt"), "inside")
    assert (project / "b" / "x.txt").exists()
    (project / "hop").symlink_to(outside)
    (project / "far").symlink_to("hop")
    with pytest.raises(LinkOutside):
        atomic_write(Path("far/x.txt"), "no")
    assert outside_files(outside) == ["keep.txt"]


@pytest.mark.parametrize("target", ["inside-missing", "../outside/missing", "loop"])
def test_a_link_to_nothing_is_refused_in_one_line(world, target: str) -> None:
    project, outside = world
    (project / "reports").symlink_to(target if target != "loop" else "reports")
    with pytest.raises(LinkOutside, match="reports is a link to nothing"):
        make_folder(Path("reports/towns"))
    assert outside_files(outside) == ["keep.txt"]


def test_paths_that_never_enter_the_project_are_taken_as_named(world) -> None:
    """`--reports /elsewhere` is the user's choice; a link leading into the project is fine too."""
    project, outside = world
    atomic_write(outside / "named" / "summary.json", "{}")
    assert (outside / "named" / "summary.json").exists()
    (outside / "into").symlink_to(project)
    atomic_write(outside / "into" / "reports" / "x.json", "{}")
    assert (project / "reports" / "x.json").exists()


def test_an_absolute_path_into_the_project_is_checked_too(world) -> None:
    project, outside = world
    (project / "reports").symlink_to(outside)
    with pytest.raises(LinkOutside):
        atomic_write(project / "reports" / "x.json", "{}")


def test_a_project_named_besides_the_working_folder_is_guarded(world, tmp_path: Path) -> None:
    """Cassettes are written into the suite's project, wherever the command runs."""
    _, outside = world
    other = tmp_path / "other"
    (other / "fixtures").mkdir(parents=True)
    (other / "fixtures" / "cassettes").symlink_to(outside)
    target = other / "fixtures" / "cassettes" / "suite" / "v" / "case.json"
    with pytest.raises(LinkOutside):
        atomic_write(target, "{}", roots=(other,))
    assert outside_files(outside) == ["keep.txt"]


def test_a_link_in_the_files_own_place_is_replaced_not_written_through(world) -> None:
    project, outside = world
    (project / "summary.json").symlink_to(outside / "keep.txt")
    atomic_write(Path("summary.json"), "{}")
    assert not (project / "summary.json").is_symlink()
    assert (outside / "keep.txt").read_text(encoding="utf-8") == "outside\n"


def test_a_lock_or_log_opened_through_a_link_is_refused(world) -> None:
    """O_CREAT and append follow a final link: a planted `.lock -> ~/x` would create ~/x."""
    project, outside = world
    (project / ".lock").symlink_to(outside / "made-by-harness")
    with pytest.raises(LinkOutside, match="is a link"):
        open_no_follow(Path(".lock"), os.O_RDWR | os.O_CREAT)
    assert outside_files(outside) == ["keep.txt"]
    fd = open_no_follow(Path("real.lock"), os.O_RDWR | os.O_CREAT)
    os.close(fd)


def test_check_folder_accepts_a_folder_that_does_not_exist_yet(world) -> None:
    check_folder(Path("reports/towns/new"))
    check_folder(Path("."))


def test_a_file_an_importer_copies_must_resolve_inside_the_imported_project(tmp_path: Path) -> None:
    project, secret = tmp_path / "project", tmp_path / "secret.txt"
    (project / "prompts").mkdir(parents=True)
    secret.write_text("key", encoding="utf-8")
    (project / "prompts" / "real.txt").write_text("{input_text}", encoding="utf-8")
    (project / "prompts" / "alias.txt").symlink_to("real.txt")
    (project / "prompts" / "leak.txt").symlink_to(secret)
    assert resolves_inside(project / "prompts" / "alias.txt", project)
    check_source(project / "prompts" / "alias.txt", project, "prompt file")
    for path in (project / "prompts" / "leak.txt", project / ".." / "secret.txt", secret):
        assert not resolves_inside(path, project)
        with pytest.raises(InputError, match="outside the project"):
            check_source(path, project, "prompt file")
